import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notificationEventSchema, toNotificationRecord } from '../../../chat/notifications.ts';
import { storeNotification } from '../../../chat/processed-events.ts';
import { findTextFault } from '../../../lib/text-rules.ts';
import { HttpProblem, problemSchema, unauthenticated } from '../../problem.ts';

/** Intercom's payloads are small; this leaves room for a conversation with many parts. */
const BODY_LIMIT_BYTES = 2 * 1024 * 1024;
const SIGNATURE = /^sha1=([0-9a-f]{40})$/i;

/**
 * `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the raw body>` keyed by the client secret, compared in
 * constant time (the digests have a fixed length, so only a malformed header returns early).
 */
export function verifyHubSignature(rawBody: Buffer, header: unknown, clientSecret: string | null): boolean {
  if (clientSecret === null || clientSecret === '' || typeof header !== 'string') return false;
  const given = SIGNATURE.exec(header.trim())?.[1];
  if (given === undefined) return false;
  const expected = createHmac('sha1', clientSecret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const notificationIdOf = (payload: unknown): string | null =>
  typeof payload === 'object' && payload !== null && 'id' in payload && typeof payload.id === 'string'
    ? payload.id.slice(0, 200)
    : null;

const notAnEvent = () =>
  new HttpProblem(400, 'validation_failed', 'The body is not an Intercom notification_event.');

/**
 * `POST /webhooks/support` (API.md "Webhook"): verify, store the minimal record (deduplicated by
 * notification id), answer 200, wake the inbox. Storing before answering makes the 200 a promise that a
 * crash cannot break; the work itself (src/jobs/support-inbox.ts) happens after, on any replica.
 *
 * Not wrapped in fastify-plugin on purpose: the raw-body JSON parser registered here must stay in this
 * plugin's scope, since every other route wants JSON parsed.
 */
export const supportWebhookRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, support } = app.services;
  // SUPPORT_CLIENT_SECRET; with none, no delivery can be verified and every one is refused.
  const clientSecret = support.webhookSecret;
  // The signature covers the exact bytes, so the body is kept as they came; it is parsed after verifying.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body);
  });

  const description =
    'Signed with `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the raw body keyed by SUPPORT_CLIENT_SECRET>`; ' +
    'a missing or wrong signature is refused with 401 and nothing is stored. A verified notification is ' +
    'stored once per notification id before the 200, then processed asynchronously.';

  app.post(
    '/webhooks/support',
    {
      bodyLimit: BODY_LIMIT_BYTES,
      schema: {
        operationId: 'receiveSupportWebhook',
        security: [{ supportSignature: [] }],
        tags: ['webhooks'],
        summary: "Intercom's notification_event webhook",
        description,
        headers: z.object({ 'x-hub-signature': z.string().optional().describe('sha1=<hex>') }),
        response: {
          200: z.object({}).describe('Stored (or stored before)'),
          400: problemSchema,
          401: problemSchema,
          413: problemSchema,
          415: problemSchema,
        },
      },
    },
    async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (!verifyHubSignature(raw, request.headers['x-hub-signature'], clientSecret)) {
        throw unauthenticated();
      }
      const payload = parseJson(raw);
      const fault = findTextFault(payload);
      if (fault) {
        // Signed, so Intercom's own: a 4xx stops its retries. Nothing of the payload but its id is logged.
        request.log.warn({ notificationId: notificationIdOf(payload) }, 'support webhook refused: not text');
        throw new HttpProblem(
          400,
          'validation_failed',
          'The notification holds a string that is not text.',
          {},
          [{ path: ['body', ...fault.path].join('.'), message: fault.message }],
        );
      }
      const parsed = notificationEventSchema.safeParse(payload);
      if (!parsed.success) throw notAnEvent();
      const record = toNotificationRecord(parsed.data);
      const stored = await storeNotification(pool, record);
      request.log.info(
        { notificationId: record.notificationId, topic: record.topic, duplicate: !stored },
        'support webhook stored',
      );
      if (stored) support.inbox.wake();
      return {};
    },
  );

  // Nothing to say, so no body and no response schema (a serialized `null` would still set a length).
  app.head(
    '/webhooks/support',
    {
      schema: { tags: ['webhooks'], summary: 'Answers 200, for Intercom checking that the endpoint exists' },
    },
    async (_request, reply) => reply.code(200).send(),
  );
};
