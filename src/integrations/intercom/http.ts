import type { Logger } from 'pino';
import { ProviderError, type ProviderErrorInit, type ProviderErrorKind } from './errors.ts';
import type { ProviderCalls } from '../../lib/provider-calls.ts';

export const INTERCOM_VERSION = '2.15';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface IntercomRequest {
  readonly method: HttpMethod;
  /** A path template such as `/conversations/{id}`; it is what logs and errors show. */
  readonly route: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

export interface HttpOptions {
  readonly baseUrl: string;
  readonly accessToken: string;
  readonly logger: Logger;
  /** Per attempt, connect to last body byte. */
  readonly timeoutMs: number;
  /** The wait after a 429 that carries no usable `X-RateLimit-Reset`: one Intercom window. */
  readonly rateLimitFallbackMs: number;
  /** Counts each exchange by route template and status (`provider_requests_total`). */
  readonly calls?: ProviderCalls | undefined;
  /** The clock a 429's `X-RateLimit-Reset` is read against (ms since the epoch). */
  readonly now: () => number;
}

/** A reset further away than this is a clock problem, not a wait worth holding every call for. */
const MAX_RATE_LIMIT_WAIT_MS = 60_000;

export function expandRoute(route: string, params: Readonly<Record<string, string>> = {}): string {
  return route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

function kindOfStatus(status: number): ProviderErrorKind {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status >= 500) return 'unavailable';
  return 'invalid';
}

/** `X-RateLimit-Reset` is a unix time in seconds; Intercom sends no Retry-After. */
export function rateLimitWaitMs(reset: string | null, fallbackMs: number, now = Date.now()): number {
  const seconds = reset === null ? Number.NaN : Number(reset);
  if (!Number.isFinite(seconds) || seconds <= 0) return fallbackMs;
  return Math.min(Math.max(seconds * 1000 - now, 0), MAX_RATE_LIMIT_WAIT_MS);
}

interface ErrorList {
  readonly requestId: string | undefined;
  readonly code: string | undefined;
  readonly message: string | undefined;
}

/** `{ type: "error.list", request_id, errors: [{ code, message }] }`, read defensively. */
function readErrorList(body: unknown): ErrorList {
  const record = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const list = record(body);
  const first = record(Array.isArray(list.errors) ? (list.errors[0] as unknown) : undefined);
  return { requestId: text(list.request_id), code: text(first.code), message: text(first.message) };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export type Send = (request: IntercomRequest) => Promise<unknown>;

/**
 * One HTTP exchange with Intercom: the three required headers, a timeout over the whole exchange, the
 * JSON answer, and every failure as a `ProviderError`. No retries or waiting here (see resilience.ts).
 * One log line per exchange with the method, route template, status, duration and Intercom's request id:
 * never a body, a header value or an expanded path (paths carry ids such as the user's external id).
 */
export function createSend(options: HttpOptions): Send {
  const base = options.baseUrl.replace(/\/+$/, '');
  const log = options.logger;
  const headers = {
    authorization: `Bearer ${options.accessToken}`,
    accept: 'application/json',
    'intercom-version': INTERCOM_VERSION,
  };

  return async function send(request) {
    const { method, route } = request;
    const url = base + expandRoute(route, request.params);
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const fail = (init: Omit<ProviderErrorInit, 'method' | 'route'>): ProviderError => {
      const error = new ProviderError({ ...init, method, route });
      const outcome = init.status ?? (init.reason === 'timeout' ? 'timeout' : 'error');
      options.calls?.record({ provider: 'intercom', method, route, status: outcome });
      const line = {
        method,
        route,
        status: init.status,
        reason: init.reason,
        durationMs: elapsed(),
        requestId: init.requestId,
      };
      if (error.kind === 'unavailable' || error.kind === 'rate_limited')
        log.warn(line, 'intercom call failed');
      else log.info(line, 'intercom call refused');
      return error;
    };

    const signal = AbortSignal.timeout(options.timeoutMs);
    let status: number;
    let responseHeaders: Headers;
    let text: string;
    try {
      const response = await fetch(url, {
        method,
        headers: request.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal,
        // Never carry the token to wherever a redirect points.
        redirect: 'error',
      });
      status = response.status;
      responseHeaders = response.headers;
      text = await response.text();
    } catch {
      throw fail({ kind: 'unavailable', reason: signal.aborted ? 'timeout' : 'network' });
    }

    const parsed = parseJson(text);
    const headerRequestId = responseHeaders.get('x-request-id') ?? undefined;
    if (status >= 200 && status < 300) {
      if (!parsed.ok) throw fail({ kind: 'unavailable', reason: 'malformed_response', status });
      options.calls?.record({ provider: 'intercom', method, route, status });
      log.debug(
        { method, route, status, durationMs: elapsed(), requestId: headerRequestId },
        'intercom call',
      );
      return parsed.value;
    }

    const errors = readErrorList(parsed.ok ? parsed.value : undefined);
    const kind = kindOfStatus(status);
    throw fail({
      kind,
      status,
      reason:
        kind === 'rate_limited' ? 'provider_limit' : kind === 'unavailable' ? 'server_error' : undefined,
      code: errors.code,
      providerMessage: errors.message,
      requestId: errors.requestId ?? headerRequestId,
      retryAfterMs:
        kind === 'rate_limited'
          ? rateLimitWaitMs(
              responseHeaders.get('x-ratelimit-reset'),
              options.rateLimitFallbackMs,
              options.now(),
            )
          : undefined,
    });
  };
}
