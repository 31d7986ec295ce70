/**
 * What went wrong with a provider call, in the terms the app acts on:
 * - `unavailable`: no usable answer (network, timeout, 5xx, open breaker, malformed response);
 * - `rate_limited`: Intercom's limit or our own budget for it; `retryAfterMs` says when to try again;
 * - `not_found`, `conflict` (e.g. a duplicate contact), `unauthorized` (our token), `invalid` (the request).
 */
export type ProviderErrorKind =
  'unavailable' | 'rate_limited' | 'not_found' | 'conflict' | 'unauthorized' | 'invalid';

/** Why a call was `unavailable` or `rate_limited`; logged and used to decide on retries. */
export type ProviderErrorReason =
  | 'network'
  | 'timeout'
  | 'server_error'
  | 'breaker_open'
  | 'malformed_response'
  | 'provider_limit'
  | 'budget';

export interface ProviderErrorInit {
  readonly kind: ProviderErrorKind;
  readonly method: string;
  /** The path template (`/conversations/{id}`), never the expanded path. */
  readonly route: string;
  readonly status?: number | undefined;
  readonly reason?: ProviderErrorReason | undefined;
  /** Intercom's first error code (`not_found`, `conflict`, `rate_limit_exceeded`, ...). */
  readonly code?: string | undefined;
  readonly providerMessage?: string | undefined;
  readonly retryAfterMs?: number | undefined;
  readonly requestId?: string | undefined;
}

/**
 * A failed provider call. `message` carries only the method, route, kind and status or reason, so the
 * error is safe to log; Intercom's own message (which may quote what we sent) is kept apart in
 * `providerMessage`, for the callers that parse it (the duplicate contact's id), and is never logged.
 */
export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly method: string;
  readonly route: string;
  readonly status: number | undefined;
  readonly reason: ProviderErrorReason | undefined;
  readonly code: string | undefined;
  readonly providerMessage: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly requestId: string | undefined;

  constructor(init: ProviderErrorInit) {
    super(
      `Intercom ${init.method} ${init.route}: ${init.kind}` +
        (init.status === undefined ? '' : ` (HTTP ${init.status})`) +
        (init.reason === undefined ? '' : ` (${init.reason})`),
    );
    this.name = 'ProviderError';
    this.kind = init.kind;
    this.method = init.method;
    this.route = init.route;
    this.status = init.status;
    this.reason = init.reason;
    this.code = init.code;
    this.providerMessage = init.providerMessage;
    this.retryAfterMs = init.retryAfterMs;
    this.requestId = init.requestId;
  }
}

export const isProviderError = (error: unknown, kind?: ProviderErrorKind): error is ProviderError =>
  error instanceof ProviderError && (kind === undefined || error.kind === kind);
