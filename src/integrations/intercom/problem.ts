import type { ProviderError } from './errors.ts';

/** The API problem a provider failure becomes: the arguments of `HttpProblem` (src/http/problem.ts). */
export interface ProviderProblem {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** When Intercom gave no better hint: a short wait for outages, a long one for a token it refuses. */
const DEFAULT_RETRY_AFTER_S = 5;
const UNAUTHORIZED_RETRY_AFTER_S = 60;

const retryAfterSeconds = (error: ProviderError, fallback: number) =>
  error.retryAfterMs === undefined ? fallback : Math.max(1, Math.ceil(error.retryAfterMs / 1000));

const unavailable = (seconds: number, detail: string): ProviderProblem => ({
  status: 503,
  code: 'provider_unavailable',
  detail,
  headers: { 'retry-after': String(seconds) },
});

/**
 * A `ProviderError` as API.md's problem: pure, so the HTTP layer can turn it into problem+json. The
 * detail is ours and fixed per kind; Intercom's message is never echoed (it may quote what we sent).
 * - `unavailable`, `rate_limited` (Intercom's limit or our budget for it, not the caller's): 503
 *   `provider_unavailable` with `Retry-After` in seconds;
 * - `unauthorized` (Intercom refuses our token: our fault, not the caller's): 503 with a long Retry-After;
 * - `not_found`: 404 `not_found`; `conflict`: 409 `conflict`;
 * - `invalid` (Intercom refused what we sent, e.g. an attachment it cannot fetch): 400 `validation_failed`.
 */
export function providerProblem(error: ProviderError): ProviderProblem {
  switch (error.kind) {
    case 'unavailable':
      return unavailable(
        retryAfterSeconds(error, DEFAULT_RETRY_AFTER_S),
        'The support service is unavailable; try again later',
      );
    case 'rate_limited':
      return unavailable(
        retryAfterSeconds(error, DEFAULT_RETRY_AFTER_S),
        'The support service is busy; try again later',
      );
    case 'unauthorized':
      return unavailable(UNAUTHORIZED_RETRY_AFTER_S, 'The support service is unavailable; try again later');
    case 'not_found':
      return { status: 404, code: 'not_found', detail: 'Not found at the support service', headers: {} };
    case 'conflict':
      return { status: 409, code: 'conflict', detail: 'The support service reports a conflict', headers: {} };
    case 'invalid':
      return {
        status: 400,
        code: 'validation_failed',
        detail: 'The support service refused the request',
        headers: {},
      };
  }
}
