import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorList } from './errors.ts';
import type { Faults } from './faults.ts';

export interface RateLimit {
  /** Calls allowed in one window. Intercom: 10,000 a minute per app, spread over 10-second windows. */
  readonly perWindow: number;
  readonly windowSeconds: number;
}

/** One call that reached the sandbox's API (refused ones included), for tests and benchmarks to count. */
export interface SandboxCall {
  readonly method: string;
  readonly path: string;
  /** When it came (ms since the epoch, the sandbox's clock). */
  readonly at: number;
}

export interface GateOptions {
  readonly accessToken: string;
  /** Every call is appended here. */
  readonly calls: SandboxCall[];
  readonly rateLimit: RateLimit;
  readonly faults: Faults;
  readonly now: () => number;
}

const MAX_CALLS_KEPT = 100_000;

/** The only version the sandbox answers for; the others of the OpenAPI enum have other shapes. */
export const API_VERSION = '2.15';
/** The versions Intercom knows (`intercom_version` in the OpenAPI file). */
const KNOWN_VERSIONS = new Set(
  ['1.0', '1.1', '1.2', '1.3', '1.4'].concat(Array.from({ length: 16 }, (_, minor) => `2.${minor}`)),
);

const SERVER_ERRORS: Record<number, { code: string; message: string }> = {
  500: { code: 'server_error', message: 'Server Error' },
  502: { code: 'bad_gateway', message: 'Bad Gateway' },
  503: { code: 'service_unavailable', message: 'Service Unavailable' },
  504: { code: 'gateway_timeout', message: 'Gateway Timeout' },
};

function send(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).send(errorList(code, message, String(reply.getHeader('x-request-id'))));
}

export function hasBearer(request: FastifyRequest, token: string): boolean {
  return request.headers.authorization === `Bearer ${token}`;
}

/**
 * What Intercom checks on every call, in this order: injected faults first (an outage answers before
 * anything), then the token (401), Accept (406), Intercom-Version (400), the rate limit (429). Every answer
 * carries the X-RateLimit-* headers, Reset in unix seconds; a 429 has no Retry-After, as in Intercom.
 */
export function installGate(scope: FastifyInstance, options: GateOptions): void {
  const windowMs = options.rateLimit.windowSeconds * 1000;
  let windowStart = 0;
  let used = 0;

  scope.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', randomUUID());
    const now = options.now();
    if (now >= windowStart + windowMs) {
      windowStart = Math.floor(now / windowMs) * windowMs;
      used = 0;
    }
    const reset = Math.ceil((windowStart + windowMs) / 1000);
    const headers = (remaining: number) =>
      reply.headers({
        'x-ratelimit-limit': options.rateLimit.perWindow,
        'x-ratelimit-remaining': remaining,
        'x-ratelimit-reset': reset,
      });
    const path = request.url.split('?')[0] ?? request.url;
    options.calls.push({ method: request.method, path, at: options.now() });
    // A sandbox left running under `npm start` must not grow without bound.
    if (options.calls.length > MAX_CALLS_KEPT) options.calls.splice(0, options.calls.length / 2);
    const fault = options.faults.take(request.method, path);
    if (fault?.status === 429) {
      headers(0);
      return send(reply, 429, 'rate_limit_exceeded', 'Rate Limit Exceeded');
    }
    headers(Math.max(0, options.rateLimit.perWindow - used - 1));
    if (fault) {
      const { code, message } = SERVER_ERRORS[fault.status] ?? {
        code: 'server_error',
        message: 'Server Error',
      };
      return send(reply, fault.status, code, message);
    }
    if (!hasBearer(request, options.accessToken))
      return send(reply, 401, 'unauthorized', 'Access Token Invalid');
    if (!acceptsJson(request.headers.accept)) {
      return send(reply, 406, 'not_acceptable', 'The Accept header must ask for application/json');
    }
    const version = request.headers['intercom-version'];
    if (version !== API_VERSION) {
      const known = typeof version === 'string' && KNOWN_VERSIONS.has(version);
      const message = known
        ? `The sandbox speaks only Intercom-Version ${API_VERSION}`
        : 'The requested version could not be found';
      return send(reply, 400, 'intercom_version_invalid', message);
    }
    used += 1;
    if (used > options.rateLimit.perWindow) {
      headers(0);
      return send(reply, 429, 'rate_limit_exceeded', 'Rate Limit Exceeded');
    }
  });
}

/** Only an explicit application/json will do: a client that sends `*\/*` is told, as Intercom tells it. */
function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => range.split(';')[0]?.trim().toLowerCase() === 'application/json');
}
