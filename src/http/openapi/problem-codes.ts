/**
 * Every `code` a problem can carry, by status, as the OpenAPI document lists them. A client branches on
 * `code`, never on `detail`; a status not listed here answers only with the codes of its row.
 */
export const problemCodes: Readonly<Record<number, Readonly<Record<string, string>>>> = {
  400: {
    validation_failed: 'a field is wrong; `errors` names each one',
    bad_request: 'the request itself is malformed (path, multipart framing, HTTP)',
  },
  401: {
    unauthenticated: 'no session, or one that is expired, revoked or not valid',
    invalid_credentials: 'the email or password is wrong (admin login)',
  },
  403: {
    forbidden: "not the caller's own record, or a permission the caller lacks",
    user_banned: 'banned from commenting in this channel; `until` says when the ban ends',
    comments_closed: 'comments are off for this post',
    reaction_not_allowed: 'the channel does not take this reaction',
  },
  404: { not_found: 'nothing with that id, or nothing the caller may see' },
  408: { bad_request: 'the request took too long to arrive' },
  409: {
    conflict: 'the record is not in a state that allows this, or a retry of a request still in progress',
    already_rated: 'the conversation or ticket already has a different rating',
  },
  413: {
    payload_too_large: 'the JSON body is over the limit of this route',
    upload_too_large: 'the file is over the upload cap',
    image_too_large: 'the image declares more pixels than the service accepts',
  },
  414: { bad_request: 'a path segment is too long' },
  415: {
    unsupported_media_type: 'the body is not JSON (or not multipart where a file is expected)',
    upload_type_not_allowed: 'the file is not of an allowed type (judged by its bytes)',
  },
  416: { range_not_satisfiable: 'the Range lies outside the file' },
  422: {
    comment_contains_link: 'comments may not carry links',
    comment_dlp_blocked: 'the comment holds something that looks like a secret or card number',
    idempotency_key_reused: 'this Idempotency-Key was used for a different request',
  },
  429: {
    rate_limited: 'too many requests, or the channel slow mode; wait `Retry-After` seconds',
    login_locked: 'too many failed admin logins from this address; wait `Retry-After` seconds',
  },
  431: { bad_request: 'the request headers are too large' },
  500: { internal_error: 'a fault of the service; the log has it under the X-Request-Id' },
  503: {
    provider_unavailable:
      'the support provider is unreachable or refusing; retry after `Retry-After` seconds',
    not_ready: 'the service is not ready to serve (readiness)',
  },
};

/** "403 `forbidden` (not the caller's own…), `user_banned` (…)", for a response's description. */
export function problemDescription(status: number): string {
  const codes = Object.entries(problemCodes[status] ?? {});
  const listed = codes.map(([code, meaning]) => `\`${code}\`: ${meaning}`).join('; ');
  return codes.length === 0 ? 'A problem (RFC 9457)' : `A problem (RFC 9457) with code ${listed}.`;
}
