// A loopback stand-in for the Telegram Bot API's sendMessage, for development, tests and benchmarks: the
// real telegraf client talks to it (see integrations/push/telegram.ts). It records when each message came
// so a benchmark can check the sender kept to Telegram's limits (about 30 a second, 1 a second per chat).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/** How the fake fails a send to a chat, each the way the Bot API answers it. */
export type FakeTelegramFailure =
  | 'blocked' // 403 Forbidden: bot was blocked by the user
  | 'deactivated' // 403 Forbidden: user is deactivated
  | 'not-started' // 403 Forbidden: bot can't initiate conversation with a user
  | 'not-found' // 400 Bad Request: chat not found
  | 'rate' // 429 Too Many Requests: retry after N
  | 'internal'; // 500

export interface FakeTelegramFailOptions {
  /** Fail only the first `times` attempts, then succeed; forever when absent. */
  readonly times?: number;
  /** N of a 'rate' answer (1 when absent). */
  readonly retryAfterSeconds?: number;
}

export interface FakeTelegramMessage {
  readonly chatId: string;
  readonly text: string;
  readonly replyMarkup?: unknown;
  /** The HTTP status the fake answered. */
  readonly status: number;
  /** When it arrived (epoch ms). */
  readonly at: number;
}

export interface FakeTelegramOptions {
  readonly port?: number;
  readonly host?: string;
  /** The one bot token the fake accepts; others get 401 like Telegram. */
  readonly token?: string;
}

export interface FakeTelegram {
  /** `http://host:port`, for MESSENGER_API_ROOT. */
  readonly apiRoot: string;
  readonly token: string;
  /** sendMessage requests answered, whatever the answer. */
  readonly count: number;
  /** Every sendMessage request, in arrival order. */
  received(): readonly FakeTelegramMessage[];
  /** The most messages taken (status 200) within any one second: overall, and to any one chat. */
  peakRates(): { readonly overall: number; readonly perChat: number };
  /** Forgets received messages (programmed failures stay). */
  clear(): void;
  failChat(chatId: string | number, kind: FakeTelegramFailure, options?: FakeTelegramFailOptions): void;
  resetFailures(): void;
  close(): Promise<void>;
}

export const FAKE_TELEGRAM_TOKEN = '1000000:loopback-bot-token';

const PATH = /^\/bot([^/]+)\/([A-Za-z]+)$/;

const FAILURES: Readonly<
  Record<FakeTelegramFailure, { readonly status: number; readonly description: string }>
> = {
  blocked: { status: 403, description: 'Forbidden: bot was blocked by the user' },
  deactivated: { status: 403, description: 'Forbidden: user is deactivated' },
  'not-started': { status: 403, description: "Forbidden: bot can't initiate conversation with a user" },
  'not-found': { status: 400, description: 'Bad Request: chat not found' },
  rate: { status: 429, description: 'Too Many Requests: retry after' },
  internal: { status: 500, description: 'Internal Server Error' },
};

const sendMessage = z.object({
  chat_id: z.union([z.string().min(1), z.number()]).transform(String),
  text: z.string().min(1),
  reply_markup: z.unknown().optional(),
});

interface FailureRule {
  readonly kind: FakeTelegramFailure;
  remaining: number;
  readonly retryAfterSeconds: number;
}

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? FAKE_TELEGRAM_TOKEN;
  let recorded: FakeTelegramMessage[] = [];
  let nextMessageId = 1;
  const rules = new Map<string, FailureRule>();

  const failureFor = (chatId: string): FailureRule | undefined => {
    const rule = rules.get(chatId);
    if (!rule) return undefined;
    if (rule.remaining <= 0) {
      rules.delete(chatId);
      return undefined;
    }
    rule.remaining -= 1;
    return rule;
  };

  /** The answer to one request; a sendMessage is recorded whatever it is answered. */
  const answer = async (req: IncomingMessage): Promise<Answer> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const match = PATH.exec(url.pathname);
    if (!match || match[1] !== token) return envelope(401, { description: 'Unauthorized' });
    const method = match[2];
    if (method === 'getMe') {
      return envelope(200, {
        result: { id: 1_000_000, is_bot: true, first_name: 'Loopback', username: 'loopback_bot' },
      });
    }
    if (method !== 'sendMessage') return envelope(404, { description: 'Not Found' });
    const fields = { ...Object.fromEntries(url.searchParams), ...(await readFields(req)) };
    const parsed = sendMessage.safeParse(fields);
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path[0] === 'chat_id' ? 'chat_id' : 'message text';
      return envelope(400, { description: `Bad Request: ${field} is empty` });
    }
    const { chat_id: chatId, text } = parsed.data;
    const replyMarkup = parseMarkup(parsed.data.reply_markup);
    const failure = failureFor(chatId);
    const at = Date.now();
    const status = failure ? FAILURES[failure.kind].status : 200;
    recorded.push({ chatId, text, ...(replyMarkup === undefined ? {} : { replyMarkup }), status, at });
    if (failure?.kind === 'rate') {
      const after = failure.retryAfterSeconds;
      return envelope(
        429,
        { description: `Too Many Requests: retry after ${after}`, parameters: { retry_after: after } },
        { 'retry-after': String(after) },
      );
    }
    if (failure) return envelope(status, { description: FAILURES[failure.kind].description });
    const chat = { id: /^-?\d+$/.test(chatId) ? Number(chatId) : chatId, type: 'private' };
    return envelope(200, {
      result: {
        message_id: nextMessageId++,
        chat,
        date: Math.floor(at / 1000),
        text,
        ...(replyMarkup === undefined ? {} : { reply_markup: replyMarkup }),
      },
    });
  };

  const server = createServer({ keepAlive: true, keepAliveTimeout: 65_000 }, (req, res) => {
    answer(req)
      .catch(() => envelope(500, { description: 'Internal Server Error' }))
      .then((a) => {
        res.writeHead(a.status, a.headers);
        res.end(a.body);
      })
      .catch(() => {
        res.destroy();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    apiRoot: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    token,
    get count() {
      return recorded.length;
    },
    received: () => recorded,
    peakRates: () => peakRates(recorded.filter((m) => m.status === 200)),
    clear() {
      recorded = [];
    },
    failChat(chatId, kind, o = {}) {
      rules.set(String(chatId), {
        kind,
        remaining: o.times ?? Infinity,
        retryAfterSeconds: o.retryAfterSeconds ?? 1,
      });
    },
    resetFailures() {
      rules.clear();
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

interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The Bot API's envelope: `{ ok: true, result }` or `{ ok: false, error_code, description, parameters? }`. */
function envelope(
  status: number,
  fields: Readonly<Record<string, unknown>>,
  headers: Readonly<Record<string, string>> = {},
): Answer {
  const body = JSON.stringify(
    status === 200 ? { ok: true, ...fields } : { ok: false, error_code: status, ...fields },
  );
  return {
    status,
    headers: {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    },
    body,
  };
}

/** Request fields as the Bot API takes them: JSON, urlencoded or multipart form bodies. */
async function readFields(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw === '') return {};
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const json: unknown = JSON.parse(raw);
    return typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
  }
  if (type.startsWith('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(raw));
  }
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type);
  if (type.startsWith('multipart/form-data') && boundary) {
    return multipartFields(raw, boundary[1] ?? boundary[2] ?? '');
  }
  return {};
}

/** The text fields of a multipart body (telegraf sends one for media; files are not kept). */
function multipartFields(raw: string, boundary: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const part of raw.split(`--${boundary}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const name = /name="([^"]*)"/.exec(part.slice(0, split))?.[1];
    if (name !== undefined) fields[name] = part.slice(split + 4).replace(/\r\n$/, '');
  }
  return fields;
}

/** reply_markup arrives as an object in JSON bodies and as a JSON string in form bodies. */
function parseMarkup(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function peakRates(messages: readonly FakeTelegramMessage[]): { overall: number; perChat: number } {
  const byChat = new Map<string, number[]>();
  for (const m of messages) {
    const times = byChat.get(m.chatId) ?? [];
    times.push(m.at);
    byChat.set(m.chatId, times);
  }
  let perChat = 0;
  for (const times of byChat.values()) perChat = Math.max(perChat, peakPerSecond(times));
  return { overall: peakPerSecond(messages.map((m) => m.at)), perChat };
}

/** The most timestamps (ms, ascending) inside any window of 1000 ms. */
function peakPerSecond(times: readonly number[]): number {
  let peak = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= 1000) start++;
    peak = Math.max(peak, end - start + 1);
  }
  return peak;
}
