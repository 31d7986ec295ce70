import { Agent } from 'undici';

/**
 * The generator's HTTP client: undici's Agent, keep-alive, at most `connections` sockets per origin,
 * shared by every user (a user is a schedule and its tokens and ETags, not a socket of its own). With
 * `affinity` (BENCH_FLEET_AFFINITY), each user keeps to one of the sockets instead, as a phone keeps its
 * own: its requests reach the one process that socket reached, and wait for each other's turn on it.
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
  /** The user the request is made for (its index in the fleet); its socket, with affinity. */
  readonly user: number;
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

export function createHttp(connections: number, affinity: boolean): Http {
  const agentOf = (sockets: number) =>
    new Agent({
      connections: sockets,
      keepAliveTimeout: 60_000,
      keepAliveMaxTimeout: 600_000,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
  // With affinity, one agent of one socket per lane, and user u in lane u mod `connections`.
  const agents = affinity ? Array.from({ length: connections }, () => agentOf(1)) : [agentOf(connections)];
  return {
    async send(request) {
      const agent = agents[request.user % agents.length] ?? agents[0];
      if (agent === undefined) throw new Error('no HTTP agent');
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
    destroy: async () => {
      await Promise.all(agents.map((a) => a.destroy()));
    },
  };
}
