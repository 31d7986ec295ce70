// A loopback stand-in for FCM's HTTP v1 send endpoint, for development, tests and benchmarks: the real
// firebase-admin client talks to it (see integrations/push/fcm.ts). Cheap per request on purpose (no
// logging, constant error bodies) so a benchmark can push ~10k messages a second through it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/** How the fake fails a send, each the way FCM answers it. */
export type FakeFcmFailure =
  | 'unregistered' // 404 NOT_FOUND, FcmError UNREGISTERED
  | 'invalid-token' // 400 INVALID_ARGUMENT naming the token (message and field violation)
  | 'invalid-payload' // 400 INVALID_ARGUMENT about another field
  | 'quota' // 429 RESOURCE_EXHAUSTED, FcmError QUOTA_EXCEEDED, Retry-After
  | 'internal' // 500 INTERNAL
  | 'unavailable'; // 503 UNAVAILABLE (firebase-admin retries this one itself)

export interface FakeFcmFailOptions {
  /** Fail only the first `times` attempts, then succeed; forever when absent. */
  readonly times?: number;
  /** Retry-After of a 'quota' or 'unavailable' answer, in seconds (quota: 1 when absent). */
  readonly retryAfterSeconds?: number;
}

export interface FakeFcmMessage {
  readonly project: string;
  readonly token: string;
  readonly notification?: { readonly title?: string; readonly body?: string };
  readonly data?: Readonly<Record<string, string>>;
  /** The HTTP status the fake answered. */
  readonly status: number;
  /** When it arrived (epoch ms). */
  readonly at: number;
}

export interface FakeFcmOptions {
  readonly port?: number;
  readonly host?: string;
  /** Wait this long before each answer. */
  readonly latencyMs?: number;
  /**
   * Which sends `received()` keeps: all (`true`), none (`false`, counting only), or the first N (a
   * number; 10 000 when absent, so a benchmark's memory stays bounded).
   */
  readonly record?: boolean | number;
}

export interface FakeFcm {
  /** `http://host:port`, for FCM_BASE_URL. */
  readonly url: string;
  /** Well-formed send requests answered, programmed failures included. */
  readonly count: number;
  received(): readonly FakeFcmMessage[];
  /** Forgets received messages and the count (programmed failures stay). */
  clear(): void;
  failToken(token: string, kind: FakeFcmFailure, options?: FakeFcmFailOptions): void;
  /** Fails every send without a failure of its own token. */
  failAll(kind: FakeFcmFailure, options?: FakeFcmFailOptions): void;
  resetFailures(): void;
  setLatency(ms: number): void;
  close(): Promise<void>;
}

const DEFAULT_RECORD_LIMIT = 10_000;
const SEND_PATH = /^\/v1\/projects\/([^/]+)\/messages:send$/;
const FCM_ERROR = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
const INVALID_TOKEN_TEXT = 'The registration token is not a valid FCM registration token';

const sendRequest = z.object({
  message: z.object({
    token: z.string().min(1),
    notification: z.object({ title: z.string().optional(), body: z.string().optional() }).optional(),
    data: z.record(z.string(), z.string()).optional(),
  }),
});

interface ErrorAnswer {
  readonly status: number;
  readonly body: Buffer;
}

const answer = (code: number, status: string, message: string, details: readonly object[] = []) => ({
  status: code,
  body: Buffer.from(JSON.stringify({ error: { code, message, status, details } })),
});
const fcmError = (errorCode: string) => ({ '@type': FCM_ERROR, errorCode });

// FCM's own answers, serialized once.
const FAILURES: Readonly<Record<FakeFcmFailure, ErrorAnswer>> = {
  unregistered: answer(404, 'NOT_FOUND', 'Requested entity was not found.', [fcmError('UNREGISTERED')]),
  'invalid-token': answer(400, 'INVALID_ARGUMENT', INVALID_TOKEN_TEXT, [
    fcmError('INVALID_ARGUMENT'),
    { '@type': BAD_REQUEST, fieldViolations: [{ field: 'message.token', description: INVALID_TOKEN_TEXT }] },
  ]),
  'invalid-payload': answer(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
    fcmError('INVALID_ARGUMENT'),
    {
      '@type': BAD_REQUEST,
      fieldViolations: [{ field: 'message.data', description: 'Invalid data payload key: from' }],
    },
  ]),
  quota: answer(
    429,
    'RESOURCE_EXHAUSTED',
    "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute'.",
    [fcmError('QUOTA_EXCEEDED')],
  ),
  internal: answer(500, 'INTERNAL', 'Internal error encountered.', [fcmError('INTERNAL')]),
  unavailable: answer(503, 'UNAVAILABLE', 'The service is currently unavailable.', [fcmError('UNAVAILABLE')]),
};
const UNAUTHENTICATED = answer(
  401,
  'UNAUTHENTICATED',
  'Request is missing required authentication credential. Expected OAuth 2 access token.',
);
const NOT_FOUND = answer(404, 'NOT_FOUND', 'Not found.');
const MALFORMED = answer(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
  fcmError('INVALID_ARGUMENT'),
]);

interface FailureRule {
  readonly kind: FakeFcmFailure;
  remaining: number;
  readonly retryAfterSeconds: number | undefined;
}

export async function startFakeFcm(options: FakeFcmOptions = {}): Promise<FakeFcm> {
  const host = options.host ?? '127.0.0.1';
  const recordLimit =
    options.record === true
      ? Infinity
      : options.record === false
        ? 0
        : (options.record ?? DEFAULT_RECORD_LIMIT);
  let latencyMs = options.latencyMs ?? 0;
  let count = 0;
  let nextId = 1;
  let recorded: FakeFcmMessage[] = [];
  const tokenRules = new Map<string, FailureRule>();
  let allRule: FailureRule | undefined;

  const rule = (kind: FakeFcmFailure, o: FakeFcmFailOptions = {}): FailureRule => ({
    kind,
    remaining: o.times ?? Infinity,
    retryAfterSeconds: o.retryAfterSeconds ?? (kind === 'quota' ? 1 : undefined),
  });

  /** The failure this send meets, counting it down; undefined when the send succeeds. */
  const failureFor = (token: string): FailureRule | undefined => {
    const own = tokenRules.get(token);
    const applied = own ?? allRule;
    if (!applied) return undefined;
    if (applied.remaining <= 0) {
      if (own) tokenRules.delete(token);
      else allRule = undefined;
      return own ? failureFor(token) : undefined;
    }
    applied.remaining -= 1;
    return applied;
  };

  /** The answer to one request: a constant error, or the send's outcome (recorded). */
  const decide = (
    req: IncomingMessage,
    raw: Buffer,
  ): { error: ErrorAnswer; retryAfter?: number } | { ok: string } => {
    const match = req.method === 'POST' ? SEND_PATH.exec(req.url ?? '') : null;
    if (!match) return { error: NOT_FOUND };
    if (!req.headers.authorization?.startsWith('Bearer ')) return { error: UNAUTHENTICATED };
    const parsed = sendRequest.safeParse(parseJson(raw));
    if (!parsed.success) return { error: MALFORMED };
    const project = decodeURIComponent(match[1] ?? '');
    const { token, notification, data } = parsed.data.message;
    const failure = failureFor(token);
    count += 1;
    if (recorded.length < recordLimit) {
      const status = failure ? FAILURES[failure.kind].status : 200;
      recorded.push({ project, token, notification, data, status, at: Date.now() });
    }
    if (failure) return { error: FAILURES[failure.kind], retryAfter: failure.retryAfterSeconds };
    return { ok: `{"name":"projects/${project}/messages/${nextId++}"}` };
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: Buffer): void => {
    const result = decide(req, raw);
    if ('error' in result) {
      sendError(res, result.error, result.retryAfter);
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json; charset=UTF-8',
      'content-length': Buffer.byteLength(result.ok),
    });
    res.end(result.ok);
  };

  const server = createServer(
    // Longer than the sender's 30 s idle-socket cut-off, so the client always closes first.
    { keepAlive: true, keepAliveTimeout: 65_000 },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        if (latencyMs > 0) {
          setTimeout(() => {
            handle(req, res, raw);
          }, latencyMs);
        } else handle(req, res, raw);
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    get count() {
      return count;
    },
    received: () => recorded,
    clear() {
      recorded = [];
      count = 0;
    },
    failToken(token, kind, o) {
      tokenRules.set(token, rule(kind, o));
    },
    failAll(kind, o) {
      allRule = rule(kind, o);
    },
    resetFailures() {
      tokenRules.clear();
      allRule = undefined;
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
        server.closeAllConnections();
      }),
  };
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

function sendError(res: ServerResponse, error: ErrorAnswer, retryAfterSeconds?: number): void {
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': error.body.length,
  };
  if (retryAfterSeconds !== undefined) headers['retry-after'] = retryAfterSeconds;
  res.writeHead(error.status, headers);
  res.end(error.body);
}
