// The mobile push sender: firebase-admin's FCM HTTP v1 client behind the push port. Outcomes and logs
// carry error codes only; a token, a title or a body never leaves this file except towards FCM.
import { createPrivateKey, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { cert, deleteApp, initializeApp, type App, type Credential } from 'firebase-admin/app';
import { getMessaging, type Message, type SendResponse } from 'firebase-admin/messaging';
import type { Logger } from 'pino';
import { z } from 'zod';
import { withRequestId } from '../../lib/request-context.ts';
import { MOBILE_BATCH_LIMIT, type MobileMessage, type MobileSender, type SendOutcome } from './port.ts';
import { noProviderCalls, type ProviderCalls, type ProviderCallStatus } from '../../lib/provider-calls.ts';

export interface MobileSenderOptions {
  /** The Firebase service account JSON file (production credential and project id). */
  readonly serviceAccountPath: string;
  /** A loopback fake (`http://127.0.0.1:PORT`) that stands in for fcm.googleapis.com; never in production. */
  readonly baseUrl?: string;
  readonly logger: Logger;
  /** The firebase-admin app's name; a unique one is made when absent (many senders may share a process). */
  readonly appName?: string;
  /** Counts each message's request to FCM (`provider_requests_total`). */
  readonly calls?: ProviderCalls | undefined;
}

/** The FCM v1 endpoint every message goes to, as a template (`provider_requests_total`'s route). */
const FCM_SEND_ROUTE = '/v1/projects/{project}/messages:send';

// Sockets per sender: sendEach starts all its requests at once, so this caps the connections a batch
// opens (the rest queue in the agent) while keep-alive reuses them across batches.
const MAX_SOCKETS = 50;
// Idle kept-alive sockets close after this, before a server's own idle cut-off could race a new request.
const IDLE_SOCKET_MS = 30_000;
const LOOPBACK_PROJECT = 'loopback-project';

const SENT: SendOutcome = { outcome: 'sent' };

/**
 * A mobile sender on firebase-admin's legacy HTTP/1.1 transport with a keep-alive agent. HTTP/1.1 rather
 * than the default HTTP/2: the HTTP/2 path opens a new session (TLS handshake) for every sendEach and
 * ignores `httpAgent`, so it neither reuses connections across batches nor can be pointed at a fake.
 */
export function createMobileSender(options: MobileSenderOptions): MobileSender {
  const logger = options.logger.child({ provider: 'fcm' }, { formatters: withRequestId });
  const appSettings = appOptions(options);
  const calls = options.calls ?? noProviderCalls;
  let app: App;
  try {
    app = initializeApp(appSettings, options.appName ?? `push-mobile-${randomUUID()}`);
  } catch (error) {
    appSettings.httpAgent.destroy();
    throw error;
  }
  const messaging = getMessaging(app);
  // Deprecated only in favour of the HTTP/2 transport, which cannot use our agent (see above).
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  messaging.enableLegacyHttpTransport();
  let closed: Promise<void> | undefined;

  return {
    async sendEach(messages) {
      // A deleted app would fail each message as if it were the message's fault.
      if (closed) throw new Error('the mobile sender is closed');
      if (messages.length > MOBILE_BATCH_LIMIT) {
        throw new Error(`sendEach takes at most ${MOBILE_BATCH_LIMIT} messages, got ${messages.length}`);
      }
      // firebase-admin refuses an empty batch; nothing to send is nothing to answer.
      if (messages.length === 0) return [];
      let responses: readonly SendResponse[];
      try {
        responses = (await messaging.sendEach(messages.map(toFcmMessage))).responses;
        countCalls(
          calls,
          responses.map((r) => (r.success ? 200 : fcmCallStatus(r.error))),
        );
      } catch (error) {
        countCalls(calls, [fcmCallStatus(error)], messages.length);
        // Only a failure of the whole call lands here (per-message failures come back as responses):
        // nothing was sent, so every message is worth another try.
        const code = errorCode(error);
        logger.warn({ code, messages: messages.length }, 'fcm sendEach failed as a whole');
        return messages.map(() => ({ outcome: 'retry', code }));
      }
      const outcomes = responses.map((r) => (r.success ? SENT : classifyFcmError(r.error)));
      logBatch(logger, outcomes);
      return outcomes;
    },
    close() {
      closed ??= deleteApp(app).finally(() => {
        appSettings.httpAgent.destroy();
      });
      return closed;
    },
  };
}

function appOptions(options: MobileSenderOptions) {
  if (options.baseUrl === undefined) {
    const account = validateServiceAccount(options.serviceAccountPath);
    if (!account.ok) throw new Error(`FCM service account: ${account.reason}`);
    return {
      credential: cert(options.serviceAccountPath),
      projectId: account.projectId,
      httpAgent: new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_SOCKET_MS }),
    };
  }
  return {
    // A fixed token: no request goes to oauth2.googleapis.com.
    credential: loopbackCredential,
    projectId: readProjectId(options.serviceAccountPath) ?? LOOPBACK_PROJECT,
    httpAgent: loopbackAgent(options.baseUrl),
  };
}

const loopbackCredential: Credential = {
  getAccessToken: async () => ({ access_token: 'loopback', expires_in: 3600 }),
};

/**
 * firebase-admin posts to a hard-coded https://fcm.googleapis.com. This agent keeps that URL (and its
 * Host header) but opens a plain TCP connection to the fake instead of a TLS one to Google: https.request
 * writes its HTTP/1.1 over whatever socket the agent hands it, so the fake needs no certificate.
 */
function loopbackAgent(baseUrl: string): https.Agent {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:') throw new Error('FCM_BASE_URL must be an http:// address of the fake');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || 80);
  const agent = new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_SOCKET_MS });
  agent.createConnection = () => net.connect({ host, port });
  return agent;
}

function toFcmMessage(m: MobileMessage): Message {
  return {
    token: m.token,
    notification: { title: m.notification.title, body: m.notification.body },
    data: { ...m.data },
  };
}

// ---------------------------------------------------------------------------------------------------
// The service account file

export type ServiceAccountCheck =
  { readonly ok: true; readonly projectId: string } | { readonly ok: false; readonly reason: string };

const serviceAccountFile = z.object({
  type: z.literal('service_account'),
  project_id: z.string().min(1),
  client_email: z.string().min(1),
  private_key: z.string().min(1),
});

/**
 * Whether the file is a usable Firebase service account. Reasons name the file's problem and the fields
 * at fault, never a value: the file holds a private key, and JSON.parse's own messages quote the input.
 */
export function validateServiceAccount(path: string): ServiceAccountCheck {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    return { ok: false, reason: `file not readable (${code})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'file is not JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, reason: 'file is not a JSON object' };
  }
  const parsed = serviceAccountFile.safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((i) => i.path.join('.')))].join(', ');
    return { ok: false, reason: `not a service account: missing or wrong ${fields}` };
  }
  try {
    createPrivateKey(parsed.data.private_key);
  } catch {
    return { ok: false, reason: 'private_key is not a PEM private key' };
  }
  return { ok: true, projectId: parsed.data.project_id };
}

/** The project id of a file that may be a placeholder (development): any JSON with a `project_id`. */
function readProjectId(path: string): string | undefined {
  try {
    const parsed = z
      .object({ project_id: z.string().min(1) })
      .safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data.project_id : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------
// Classification

// Codes as firebase-admin 14 reports them (`messaging/…` from FCM's answer, `app/…` from the transport
// and the credential). Some named in FCM's docs never come out of this version (quota-exceeded,
// unavailable: it maps them to message-rate-exceeded and server-unavailable); they are kept for safety.
const REJECTED_CODES = new Set([
  'messaging/registration-token-not-registered',
  'messaging/invalid-registration-token',
]);
const RETRY_CODES = new Set([
  'messaging/message-rate-exceeded',
  'messaging/device-message-rate-exceeded',
  'messaging/quota-exceeded',
  'messaging/internal-error',
  'messaging/server-unavailable',
  'messaging/unavailable',
  'app/network-error',
  'app/network-timeout',
  // Our own credential failing (token fetch, 401 from FCM; a 401 without FCM details comes out as
  // third-party-auth-error) is an operator's fix away and says nothing of the device or the payload.
  'app/invalid-credential',
  'messaging/authentication-error',
  'messaging/third-party-auth-error',
]);

const httpResponse = z.object({
  status: z.number(),
  headers: z.record(z.string(), z.unknown()).optional(),
  data: z.unknown(),
});

const fcmErrorBody = z.object({
  error: z.object({
    message: z.string().optional(),
    details: z
      .array(
        z.looseObject({
          '@type': z.string().optional(),
          fieldViolations: z.array(z.looseObject({ field: z.string().optional() })).optional(),
        }),
      )
      .optional(),
  }),
});

/** One failed message's outcome, from the error firebase-admin put in its SendResponse. */
export function classifyFcmError(error: unknown): SendOutcome {
  const code = errorCode(error);
  const response = httpResponse.safeParse(
    typeof error === 'object' && error !== null
      ? (error as { httpResponse?: unknown }).httpResponse
      : undefined,
  );
  if (REJECTED_CODES.has(code)) return { outcome: 'rejected', code };
  if (code === 'messaging/invalid-argument') {
    const namesToken = response.success && invalidArgumentNamesToken(response.data.data);
    return namesToken ? { outcome: 'rejected', code } : { outcome: 'failed', code };
  }
  if (RETRY_CODES.has(code)) {
    const retryAfterMs = response.success
      ? parseRetryAfter(response.data.headers?.['retry-after'])
      : undefined;
    return retryAfterMs === undefined ? { outcome: 'retry', code } : { outcome: 'retry', code, retryAfterMs };
  }
  return { outcome: 'failed', code };
}

/**
 * FCM answers an unusable token with 400 INVALID_ARGUMENT, "The registration token is not a valid FCM
 * registration token", and a google.rpc.BadRequest field violation on `message.token`; a bad payload
 * gets the same status with another field or message. Either sign is enough.
 */
function invalidArgumentNamesToken(data: unknown): boolean {
  const body = fcmErrorBody.safeParse(data);
  if (!body.success) return false;
  const { message, details } = body.data.error;
  const onTokenField = (details ?? []).some((d) =>
    (d.fieldViolations ?? []).some((v) => v.field === 'message.token'),
  );
  return onTokenField || /registration token/i.test(message ?? '');
}

/** Retry-After as delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown): number | undefined {
  const text = Array.isArray(value) ? (value[0] as unknown) : value;
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
  }
  return 'unknown-error';
}

/**
 * How one message's request ended: FCM's HTTP status when it answered, else `timeout` or `error` (a
 * network failure, or a credential that could not be fetched, so nothing reached FCM).
 */
export function fcmCallStatus(error: unknown): ProviderCallStatus {
  const response = httpResponse.safeParse(
    typeof error === 'object' && error !== null
      ? (error as { httpResponse?: unknown }).httpResponse
      : undefined,
  );
  if (response.success) return response.data.status;
  return errorCode(error) === 'app/network-timeout' ? 'timeout' : 'error';
}

/** One count per status of a batch (each message is a request of its own). */
function countCalls(calls: ProviderCalls, statuses: readonly ProviderCallStatus[], times = 1): void {
  const counts = new Map<ProviderCallStatus, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + times);
  for (const [status, count] of counts) {
    calls.record({ provider: 'fcm', method: 'POST', route: FCM_SEND_ROUTE, status, count });
  }
}

/** One line per batch with counts and codes: never tokens, payloads or the errors themselves. */
function logBatch(logger: Logger, outcomes: readonly SendOutcome[]): void {
  const counts: Record<string, number> = {};
  const codes: Record<string, number> = {};
  for (const o of outcomes) {
    counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
    if (o.outcome !== 'sent') codes[o.code] = (codes[o.code] ?? 0) + 1;
  }
  const unsent = outcomes.length - (counts.sent ?? 0);
  if (unsent === 0) logger.debug({ counts }, 'fcm batch sent');
  else logger.info({ counts, codes }, 'fcm batch had unsent messages');
}
