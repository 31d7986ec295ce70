import { Agent } from 'undici';

/**
 * The generator's HTTP client: undici's Agent, keep-alive, at most `connections` sockets per origin,
 * shared by every user (a user is a schedule and its tokens and ETags, not a socket of its own).
 */

export interface Answer {
  /** null: a connection error or a timeout. */
  readonly status: number | null;
  readonly etag: string | null;
  /** `X-Poll-Interval` in milliseconds, when the answer carries a valid one. */
  readonly pollIntervalMs: number | null;
  /** The body of a 200 or 201 when asked for; null otherwise. */
  readonly body: string | null;
}

export interface Request {
  readonly origin: string;
  readonly path: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Read the body of a 200/201 (a comment poll, a new comment); every other body is discarded unread. */
  readonly wantBody?: boolean;
}

export interface Http {
  send(request: Request): Promise<Answer>;
  /** Drops every connection, requests in flight included. */
  destroy(): Promise<void>;
}

/** A body as JSON, or null when it is not JSON. */
export function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A request unanswered this long is a failure (undici's own default is 300 s). */
const TIMEOUT_MS = 30_000;

const header = (headers: Record<string, string | string[] | undefined>, name: string): string | null => {
  const value = headers[name];
  return typeof value === 'string' ? value : (value?.[0] ?? null);
};

export function createHttp(connections: number): Http {
  const agent = new Agent({
    connections,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  });
  return {
    async send(request) {
      try {
        const response = await agent.request({
          origin: request.origin,
          path: request.path,
          method: request.method,
          headers: request.headers,
          body: request.body ?? null,
        });
        const status = response.statusCode;
        const keep = request.wantBody === true && (status === 200 || status === 201);
        const body = keep ? await response.body.text() : null;
        if (!keep) await response.body.dump();
        const interval = Number(header(response.headers, 'x-poll-interval'));
        return {
          status,
          etag: header(response.headers, 'etag'),
          pollIntervalMs: Number.isInteger(interval) && interval > 0 ? interval : null,
          body,
        };
      } catch {
        return { status: null, etag: null, pollIntervalMs: null, body: null };
      }
    },
    destroy: () => agent.destroy(),
  };
}
