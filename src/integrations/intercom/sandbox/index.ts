import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { contactRoutes } from './contact-routes.ts';
import type { SandboxContext } from './context.ts';
import { conversationsRoutes } from './conversation-routes.ts';
import { errorList, IntercomError } from './errors.ts';
import { createFaults } from './faults.ts';
import { installGate, type RateLimit, type SandboxCall } from './gate.ts';
import { createOperator, type SandboxOperator } from './operator.ts';
import { OPERATOR_PREFIX, operatorRoutes } from './operator-routes.ts';
import { loadRecords, recordsFile, type PersistenceLogger } from './persistence.ts';
import { createState, type SandboxState } from './state.ts';
import { ticketsRoutes } from './ticket-routes.ts';
import { createWebhooks } from './webhooks.ts';

export { OPERATOR_PREFIX } from './operator-routes.ts';
export { API_VERSION, type SandboxCall } from './gate.ts';
export { signWebhook, type Delivery, type Notification } from './webhooks.ts';
export type { Fault } from './faults.ts';
export type { ActionResult, SandboxOperator } from './operator.ts';
export type { SandboxState } from './state.ts';

export interface IntercomSandboxOptions {
  /** The token callers must send as `Authorization: Bearer <token>`. */
  readonly accessToken: string;
  /** Signs webhooks (`X-Hub-Signature`), as the app's client secret does at Intercom. */
  readonly clientSecret: string;
  /** Where webhooks go; without it they are recorded but not sent. */
  readonly webhookUrl?: string | undefined;
  /** The workspace id: `app.id_code` of `GET /me` and `app_id` of webhooks. */
  readonly appIdCode?: string;
  /** How long a new contact is missing from `POST /contacts/search` (default 0). */
  readonly searchLagMs?: number;
  /** Default 1,666 calls a 10-second window (10,000 a minute). */
  readonly rateLimit?: RateLimit;
  /** The wait before the one retry of a failed webhook (default 60 s, as Intercom; make it short in tests). */
  readonly webhookRetryDelayMs?: number;
  /** How long a webhook receiver has to answer (default 5 s, as Intercom). */
  readonly webhookTimeoutMs?: number;
  /** Milliseconds since the epoch; tests may move time. */
  readonly now?: () => number;
  /**
   * A file to keep the records in (contacts, conversations, tickets, tags, notes, the id counters): loaded
   * at start, saved as they change and on close. Without it the records live in memory only.
   */
  readonly recordsFile?: string | undefined;
  /** The longest a change waits to be saved to `recordsFile` (default 250 ms). */
  readonly saveDelayMs?: number;
  /** Where the sandbox reports on its file (a corrupt one moved aside, a failed save); silent without. */
  readonly logger?: PersistenceLogger | undefined;
  /** The loopback port to listen on (default 0: any free one). */
  readonly port?: number;
}

export interface IntercomSandbox {
  /** The base URL, standing in for `https://api.intercom.io`. */
  readonly url: string;
  /** The token its API and its operator routes (`/_sandbox/operator`) ask for. */
  readonly accessToken: string;
  readonly operator: SandboxOperator;
  /** The records, for tests to look at (and, with care, to arrange). */
  readonly state: SandboxState;
  /** Every API call received, oldest first (operator calls not included). */
  readonly calls: readonly SandboxCall[];
  /** Where webhooks go from now on: a service starting the sandbox learns its own address last. */
  deliverWebhooksTo(url: string | undefined): void;
  /** Saves the records to `recordsFile` now (a no-op without one); close does it too. */
  saveRecords(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A loopback fake of the part of Intercom's REST API 2.15 the service uses, with an operator side.
 *
 * API (shapes as in Intercom's OpenAPI file, which the tests check them against): `GET /me`; contacts
 * (`POST /contacts`, `GET /contacts/find_by_external_id/{id}`, `POST /contacts/search` with an optional
 * index lag, archive, unarchive, delete, tags, notes); conversations (create from a user, reply as user or
 * admin, note, close, snooze or open as an admin, get, search by contact with cursor pagination, mark read,
 * tag); tickets (get, search, note, tag);
 * `POST /tags`. Every call is checked as Intercom checks it: Bearer token (401), `Accept: application/json`
 * (406), `Intercom-Version: 2.15` (400), rate limit (429 with X-RateLimit-* and no Retry-After); errors
 * are Intercom's `error.list`. State is in memory and dies with the server, unless `recordsFile` names a
 * file to keep it in (persistence.ts; `npm start` keeps it under DATA_DIR).
 *
 * Operator side (in process on `operator`, over HTTP under `/_sandbox/operator`): what a teammate does in
 * the inbox (reply, note, close, snooze, open; create, move, resolve and answer tickets), each followed by
 * the webhook Intercom would send: a `notification_event` signed with `X-Hub-Signature`, a 5-second
 * timeout, one retry after `webhookRetryDelayMs`; deliveries are recorded, can be held and released out of
 * order, and redelivered under the same id. Faults: the next N calls, or all calls for a while, answer 429
 * or 5xx. See docs/decisions/017-intercom-sandbox.md for what is left out.
 */
export async function startIntercomSandbox(options: IntercomSandboxOptions): Promise<IntercomSandbox> {
  const now = options.now ?? Date.now;
  const appIdCode = options.appIdCode ?? 'sandbox_app';
  const logger = options.logger ?? SILENT;
  const file = options.recordsFile
    ? recordsFile({ file: options.recordsFile, delayMs: options.saveDelayMs ?? 250, logger })
    : null;
  const records = options.recordsFile ? await loadRecords(options.recordsFile, logger) : null;
  const state = createState({
    appIdCode,
    searchLagMs: options.searchLagMs ?? 0,
    now,
    records: records ?? undefined,
    onChange: file?.changed,
  });
  file?.bind(state);
  const webhooks = createWebhooks({
    url: options.webhookUrl,
    clientSecret: options.clientSecret,
    appIdCode,
    timeoutMs: options.webhookTimeoutMs ?? 5_000,
    retryDelayMs: options.webhookRetryDelayMs ?? 60_000,
    now,
  });
  const faults = createFaults(now);
  const context: SandboxContext = { state, webhooks };
  const operator = createOperator(context, faults);
  const calls: SandboxCall[] = [];

  const app = Fastify({ logger: false });
  app.setErrorHandler(answerError);
  app.setNotFoundHandler(async (request, reply) =>
    reply
      .code(404)
      .send(errorList('not_found', `No route ${request.method} ${request.url.split('?')[0] ?? ''}`)),
  );
  await app.register(async (api) => {
    installGate(api, {
      accessToken: options.accessToken,
      calls,
      rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
      faults,
      now,
    });
    contactRoutes(api, context);
    conversationsRoutes(api, context);
    ticketsRoutes(api, context);
  });
  await app.register(
    async (scope) => {
      operatorRoutes(scope, operator, options.accessToken, calls);
    },
    { prefix: OPERATOR_PREFIX },
  );
  const url = await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });

  return {
    url,
    accessToken: options.accessToken,
    operator,
    state,
    calls,
    deliverWebhooksTo(target) {
      webhooks.deliverTo(target);
    },
    saveRecords: () => file?.flush() ?? Promise.resolve(),
    async close() {
      webhooks.close();
      await app.close();
      await file?.close();
    },
  };
}

const SILENT: PersistenceLogger = { info: () => undefined, warn: () => undefined };

const DEFAULT_RATE_LIMIT: RateLimit = { perWindow: 1666, windowSeconds: 10 };

/** Every refusal in Intercom's shape, Fastify's own (malformed JSON, a wrong Content-Type) included. */
function answerError(error: unknown, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const header = reply.getHeader('x-request-id');
  const requestId = typeof header === 'string' ? header : undefined;
  if (error instanceof IntercomError) {
    return reply.code(error.status).send(errorList(error.code, error.message, requestId));
  }
  const status = (error as Partial<FastifyError>).statusCode ?? 500;
  if (status >= 500) return reply.code(500).send(errorList('server_error', 'Server Error', requestId));
  const code = status === 415 ? 'unsupported_media_type' : 'bad_request';
  const message = error instanceof Error ? error.message : 'Bad Request';
  return reply.code(status).send(errorList(code, message, requestId));
}
