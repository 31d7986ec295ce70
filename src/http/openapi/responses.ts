import { problemDescription } from './problem-codes.ts';
import {
  type Document,
  type Header,
  type Operation,
  operations,
  type Parameter,
  type Reference,
  type Response,
} from './types.ts';

/**
 * What every response of a kind carries, declared once here from the conventions the plugins and
 * `poll.ts` apply to every route, so the document cannot say one thing per route and the code another:
 * errors are problem+json, polls carry their tag and pace, admin reads their tag, support polls their
 * staleness, files their ranges, 429 and 503 their wait, and every answer its request id.
 */

const text = { type: 'string' };
const seconds = { type: 'integer', minimum: 0 };

const header = (description: string, schema: Record<string, unknown> = text, required = false): Header => ({
  description,
  ...(required ? { required } : {}),
  schema,
});

const requestId: Reference = { $ref: '#/components/headers/X-Request-Id' };

export const sharedHeaders: Record<string, Header> = {
  'X-Request-Id': header(
    "The request's id: the caller's own when it sent a well-formed one, generated otherwise. Quote it when reporting a problem.",
    text,
    true,
  ),
};

const etagHeaders = {
  ETag: header(
    'The version of this answer; send it back as If-None-Match to get 304 while nothing changed.',
    text,
    true,
  ),
};

const pollHeaders = {
  ...etagHeaders,
  'X-Poll-Interval': header(
    'Milliseconds to wait before the next poll; it grows while the service is overloaded.',
    { type: 'integer', minimum: 1 },
    true,
  ),
};

const staleHeaders = {
  'X-Provider-Stale': header(
    'Present while the support provider is unreachable: the answer is the last good copy.',
    { type: 'string', enum: ['true'] },
  ),
  Age: header('With X-Provider-Stale: seconds since the provider gave that copy.', seconds),
};

const retryAfter = (when: string, required: boolean) =>
  header(`Seconds to wait before retrying${when}.`, seconds, required);

const rateLimitHeaders = {
  'X-RateLimit-Limit': header('When the request rate limit refused: requests allowed per window.', seconds),
  'X-RateLimit-Remaining': header(
    'When the request rate limit refused: requests left in the window.',
    seconds,
  ),
  'X-RateLimit-Reset': header(
    'When the request rate limit refused: seconds until the window resets.',
    seconds,
  ),
};

const fileHeaders = {
  'Content-Disposition': header('`attachment` or `inline`, with the file name.', text, true),
  'Content-Length': header('Bytes in this answer.', seconds, true),
  'Accept-Ranges': header('`bytes`: single-range requests are answered with 206.', text, true),
  'Cache-Control': header('How long the bytes may be kept, and by whom.', text, true),
  'X-Content-Type-Options': header('`nosniff`: the declared type is the detected one.', text, true),
};

/** A download of personal data (`x-download`, plugins/admin-etags.ts): saved as a file, never cached. */
const isDownload = (operation: Operation) => operation['x-download'] === true;
const downloadHeaders = {
  'Content-Disposition': header('`attachment`, with the name to save the file under.', text, true),
  'Cache-Control': header('`no-store`: the answer holds personal data, which no cache may keep.', text, true),
};

const binary = { '*/*': { schema: { type: 'string', format: 'binary' } } };

const isBinary = (response: Response) =>
  Object.values(response.content ?? {}).some((media) => media.schema?.['format'] === 'binary');

const isIdempotent = (operation: Operation) =>
  (operation.parameters ?? []).some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');

// What the type provider writes when a route gives no description of its own.
const placeholder = 'Default Response';
const successes: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: the rest happens in the background',
  204: 'Done; no content',
  206: 'Part of the content',
  304: 'Not modified since the ETag in If-None-Match; no body',
};

const isAdmin = (path: string) => path.startsWith('/admin/');

/** The header an admin read takes (plugins/admin-etags.ts), as the polls' routes declare theirs. */
const ifNoneMatch: Parameter = {
  schema: text,
  in: 'header',
  name: 'if-none-match',
  required: false,
  description: 'The ETag of the answer the caller holds: 304 while it is still the current one.',
};

/**
 * Every admin GET with a JSON answer can answer 304 (plugins/admin-etags.ts), whatever its route declares,
 * but a download.
 */
function declareRevalidation(operation: Operation): void {
  const responses = operation.responses;
  if (responses?.['200']?.content?.['application/json'] === undefined || '304' in responses) return;
  responses['304'] = { description: placeholder };
  operation.parameters = [...(operation.parameters ?? []), ifNoneMatch];
}

function describe(path: string, operation: Operation): void {
  const responses = operation.responses ?? {};
  const poll = '304' in responses;
  // An admin read has its tag but no pace: the console polls at its own interval.
  const tagHeaders = isAdmin(path) ? etagHeaders : pollHeaders;
  const providerPoll = poll && '503' in responses;
  const idempotent = isIdempotent(operation);
  for (const [code, response] of Object.entries(responses)) {
    const status = Number(code);
    const headers: Record<string, Header | Reference> = { 'X-Request-Id': requestId };
    if (response.description === placeholder) response.description = successes[status] ?? placeholder;
    if (status >= 400) {
      response.description = problemDescription(status);
      response.content = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };
      if (status === 429) Object.assign(headers, { 'Retry-After': retryAfter('', true) }, rateLimitHeaders);
      if (status === 503) headers['Retry-After'] = retryAfter('', true);
      if (status === 409 && idempotent) {
        headers['Retry-After'] = retryAfter(
          ', when a request with this Idempotency-Key is still in progress',
          false,
        );
      }
      if (status === 416)
        headers['Content-Range'] = header('`bytes */<size>`: the size of the file.', text, true);
    } else if (status === 304) {
      Object.assign(headers, tagHeaders, providerPoll ? staleHeaders : {});
    } else if (isBinary(response)) {
      response.content = binary;
      Object.assign(headers, fileHeaders);
      if (status === 206) headers['Content-Range'] = header('`bytes <first>-<last>/<size>`.', text, true);
    } else if (status >= 200 && status < 300) {
      if (poll && status === 200) Object.assign(headers, tagHeaders, providerPoll ? staleHeaders : {});
      if (isDownload(operation)) Object.assign(headers, downloadHeaders);
      if (idempotent) {
        headers['Idempotent-Replayed'] = header(
          '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
          { type: 'string', enum: ['true'] },
        );
      }
    }
    response.headers = { ...response.headers, ...headers };
  }
}

/** Declares the conventional headers and the problem media type on every operation, in place. */
export function describeResponses(document: Document): void {
  for (const { path, method, operation } of operations(document)) {
    // The API's rate limit covers every /api route (plugins/rate-limit.ts), whatever the route declares.
    if (path.startsWith('/api/') && operation.responses && !('429' in operation.responses)) {
      operation.responses['429'] = { description: placeholder };
    }
    if (isAdmin(path) && method === 'get' && !isDownload(operation)) declareRevalidation(operation);
    describe(path, operation);
  }
  document.components = {
    ...document.components,
    headers: { ...document.components?.headers, ...sharedHeaders },
  };
}
