// The messenger push sender: telegraf's Bot API client behind the push port. One call per message and no
// retries here (the push queue retries); outcomes and logs carry codes, never a chat id or a text.
import type { Logger } from 'pino';
import { Telegram, TelegramError } from 'telegraf';
import { withRequestId } from '../../lib/request-context.ts';
import type { MessengerMessage, MessengerSender, SendOutcome } from './port.ts';
import { noProviderCalls, type ProviderCalls, type ProviderCallStatus } from '../../lib/provider-calls.ts';

export interface MessengerSenderOptions {
  /** The bot token. It is part of every request's path: never logged. */
  readonly token: string;
  /** The Bot API root; a loopback fake (`http://127.0.0.1:PORT`) outside production. */
  readonly apiRoot?: string;
  readonly logger: Logger;
  /** How long one sendMessage may take before it counts as a network failure (telegraf's own is 500 s). */
  readonly timeoutMs?: number;
  /** Counts each sendMessage (`provider_requests_total`). */
  readonly calls?: ProviderCalls | undefined;
}

const DEFAULT_TIMEOUT_MS = 15_000;
// telegraf types callApi's signal with the abort-controller shim's class; node-fetch 2, which it calls,
// takes Node's own AbortSignal (it checks the constructor's name).
type TelegrafSignal = NonNullable<Parameters<Telegram['callApi']>[2]>['signal'];
const SENT: SendOutcome = { outcome: 'sent' };

export function createMessengerSender(options: MessengerSenderOptions): MessengerSender {
  const logger = options.logger.child({ provider: 'telegram' }, { formatters: withRequestId });
  const telegram = new Telegram(
    options.token,
    options.apiRoot === undefined ? {} : { apiRoot: withTrailingSlash(options.apiRoot) },
  );
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const calls = options.calls ?? noProviderCalls;
  const record = (status: ProviderCallStatus) => {
    calls.record({ provider: 'telegram', method: 'POST', route: 'sendMessage', status });
  };

  return {
    async send(message: MessengerMessage) {
      try {
        // What telegram.sendMessage(chatId, text, extra) sends, through callApi so a signal bounds the wait.
        await telegram.callApi(
          'sendMessage',
          {
            chat_id: message.chatId,
            text: message.text,
            ...(message.button
              ? {
                  reply_markup: {
                    inline_keyboard: [[{ text: message.button.text, url: message.button.url }]],
                  },
                }
              : {}),
          },
          { signal: AbortSignal.timeout(timeoutMs) as unknown as TelegrafSignal },
        );
        record(200);
        return SENT;
      } catch (error) {
        record(telegramCallStatus(error));
        const outcome = classifyTelegramError(error);
        logOutcome(logger, outcome, error);
        return outcome;
      }
    },
    // telegraf holds nothing of its own to release: plain http uses Node's global agent, https a
    // keep-alive agent shared by every telegraf client in the process.
    async close() {},
  };
}

/**
 * telegraf builds each URL as `new URL('./bot<token>/<method>', apiRoot)`, so a root with a path and no
 * trailing slash would lose its last segment.
 */
function withTrailingSlash(apiRoot: string): string {
  return apiRoot.endsWith('/') ? apiRoot : `${apiRoot}/`;
}

/** One failed sendMessage's outcome. The error's `on.payload` holds the text: it is read, never logged. */
export function classifyTelegramError(error: unknown): SendOutcome {
  if (error instanceof TelegramError) {
    const status = error.code;
    const description = error.description;
    if (status === 403) return { outcome: 'refused', code: forbiddenCode(description) };
    if (status === 400 && /chat not found/i.test(description)) {
      return { outcome: 'rejected', code: 'chat_not_found' };
    }
    if (status === 429) {
      const after = error.parameters?.retry_after;
      return typeof after === 'number' && after >= 0
        ? { outcome: 'retry', code: 'too_many_requests', retryAfterMs: after * 1000 }
        : { outcome: 'retry', code: 'too_many_requests' };
    }
    if (status >= 500) return { outcome: 'retry', code: `http_${status}` };
    // A refused bot token fails every message alike: an operator's fix, not the message's fault.
    if (status === 401) return { outcome: 'retry', code: 'unauthorized' };
    return { outcome: 'failed', code: status === 400 ? 'bad_request' : `http_${status}` };
  }
  const { name, code, type } = errorFields(error);
  if (name === 'AbortError') return { outcome: 'retry', code: 'timeout' };
  // node-fetch's FetchError: `system` with the socket's code (ECONNREFUSED, ECONNRESET…), or its own
  // type (request-timeout, invalid-json for a body that is not the Bot API's).
  if (name === 'FetchError') return { outcome: 'retry', code: code ?? `fetch_${type ?? 'error'}` };
  if (code !== undefined && /^E[A-Z]+$/.test(code)) return { outcome: 'retry', code };
  return { outcome: 'failed', code: 'unknown_error' };
}

/** How one sendMessage ended: the Bot API's status when it answered, else `timeout` or `error`. */
export function telegramCallStatus(error: unknown): ProviderCallStatus {
  if (error instanceof TelegramError) return error.code;
  const { name, type } = errorFields(error);
  return name === 'AbortError' || type === 'request-timeout' ? 'timeout' : 'error';
}

function forbiddenCode(description: string): string {
  if (/blocked by the user/i.test(description)) return 'bot_blocked';
  if (/user is deactivated/i.test(description)) return 'user_deactivated';
  if (/can't initiate conversation/i.test(description)) return 'not_started';
  if (/bot was kicked/i.test(description)) return 'bot_kicked';
  return 'forbidden';
}

function errorFields(error: unknown): { name?: string; code?: string; type?: string } {
  if (typeof error !== 'object' || error === null) return {};
  const { name, code, type } = error as { name?: unknown; code?: unknown; type?: unknown };
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof type === 'string' ? { type } : {}),
  };
}

/**
 * Codes only, plus the Bot API's description of a payload it refused, its quoted parts blanked (an entity
 * parse error can quote a piece of the text).
 */
function logOutcome(logger: Logger, outcome: SendOutcome, error: unknown): void {
  if (outcome.outcome === 'sent') return;
  if (outcome.outcome === 'failed') {
    const description =
      error instanceof TelegramError ? error.description.replace(/"[^"]*"/g, '"…"').slice(0, 200) : undefined;
    logger.warn({ outcome: outcome.outcome, code: outcome.code, description }, 'telegram message failed');
    return;
  }
  const level = outcome.outcome === 'retry' ? 'info' : 'debug';
  logger[level]({ outcome: outcome.outcome, code: outcome.code }, 'telegram message not sent');
}
