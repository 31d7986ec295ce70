import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type FirstPasswordHandover,
  handOverFirstPassword,
  type SeededOwner,
  seedOwnerAfterReset,
} from '../../../auth/bootstrap.ts';
import { conversationFor } from '../../../chat/conversations.ts';
import { wipeContact } from '../../../chat/wipe-contact.ts';
import { unregisterEveryDevice } from '../../../commands/devices.ts';
import { emptyAllTables } from '../../../db/reset.ts';
import { pushCategories } from '../../../push/dispatcher.ts';
import { latestPushes } from '../../../push/push-log.ts';
import { devicesOfUser } from '../../../queries/devices.ts';
import { userCommandContext } from '../../command-context.ts';
import { userOf } from '../../plugins/auth.ts';
import { limitParam } from '../../cursor.ts';
import { problemSchema } from '../../problem.ts';
import { providerId } from './support-schemas.ts';
import { devtoolsOperatorRoutes } from './devtools-operator.ts';
import { devtoolsOperatorTicketRoutes } from './devtools-operator-tickets.ts';
import { blockText } from '../../../lib/text-rules.ts';

const DEVICE_PROJECTIONS = ['devices'];

const pushSchema = z
  .object({
    id: z.string(),
    sourceId: z.string(),
    userId: z.string().nullable().describe('null for a post or notice that reached no device'),
    category: z.enum(pushCategories),
    kind: z.string().describe('`reply` (chat or ticket), `post` or `notice`'),
    conversationId: z.string().optional(),
    ticketId: z.string().optional(),
    postId: z.string().optional(),
    noticeId: z.string().optional(),
    csat: z.boolean(),
    platform: z.enum(['mobile', 'tma']).optional(),
    deviceKey: z.string().optional().describe('a digest of the device token (never the token)'),
    outcome: z
      .string()
      .describe(
        'per device: `queued`, `sent`, `failed`, `refused`, `removed`, or skipped: `muted`, `online`, ' +
          '`not_configured`; for a push that reached no device: `no_device`, or `queued` while it fans out',
      ),
    code: z.string().optional().describe("the push service's answer when it was not a plain success"),
    attempts: z.number().int(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'DevtoolsPush' });

const resetAllSchema = z
  .object({
    tablesEmptied: z.number().int(),
    owner: z
      .object({
        email: z.string(),
        password: z
          .enum(['in_file', 'ADMIN_BOOTSTRAP_PASSWORD', 'not_saved'])
          .describe(
            'where the password is: a generated one in `passwordFile` (never in this answer), the configured ' +
              'ADMIN_BOOTSTRAP_PASSWORD, or nowhere (set one with `npm run cli -- admins set-password`)',
          ),
        passwordFile: z.string().optional().describe('mode 0600, under DATA_DIR; delete it once used'),
        login: z.string().describe('how to sign in, in words'),
      })
      .nullable()
      .describe('the owner made after the reset; null when an admin appeared in between'),
  })
  .meta({ id: 'DevtoolsResetAll' });

/** Mounted only when ENABLE_DEVTOOLS=1 outside production (see http/routes/api/index.ts). */
export const devtoolsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store, waiter, support, config, chat, logger } = app.services;
  const devices = { store, devicesOf: (userId: string) => devicesOfUser(pool, userId) };
  app.post(
    '/devtools/wipe-contact',
    {
      schema: {
        operationId: 'devtoolsWipeContact',
        tags: ['devtools'],
        security: [{ sessionJwt: [] }],
        summary:
          "Forgets the caller's support contact mapping, read markers and devices (and the sandbox contact)",
        response: { 204: z.null().describe('Wiped'), 401: problemSchema },
      },
    },
    async (request, reply) => {
      const userId = userOf(request);
      const { position } = await unregisterEveryDevice(devices, userId, userCommandContext(request));
      await wipeContact({ pool, ...support }, userId);
      await waiter.waitFor(DEVICE_PROJECTIONS, position);
      request.log.warn({ userId: request.userId }, 'devtools wipe-contact forgot a user');
      return reply.code(204).send(null);
    },
  );

  const { sandbox } = support;
  if (sandbox) {
    // The sandbox's other operator actions (close, snooze, reopen, assign, note; open, move, answer and
    // note a ticket).
    await app.register(devtoolsOperatorRoutes);
    await app.register(devtoolsOperatorTicketRoutes);
    app.post(
      '/devtools/operator-reply',
      {
        schema: {
          operationId: 'devtoolsOperatorReply',
          tags: ['devtools'],
          security: [{ sessionJwt: [] }],
          summary: 'Sandbox only: a teammate replies; the reply arrives through a signed webhook',
          body: z.strictObject({ conversationId: providerId, text: blockText({ max: 10_000 }) }),
          response: {
            202: z.object({ messageId: z.string() }).meta({ id: 'OperatorReply' }),
            400: problemSchema,
            401: problemSchema,
            403: problemSchema,
            404: problemSchema,
            // The ownership check reads through the provider cache.
            503: problemSchema,
          },
        },
      },
      async (request, reply) => {
        const { conversationId, text } = request.body;
        // The caller's own conversation only, checked like every support route (through the read cache):
        // 404 when there is no such conversation, 403 when it is someone else's; nothing is sent then.
        await conversationFor(chat, userOf(request), conversationId);
        const result = await sandbox.operator.reply(conversationId, { body: text });
        return reply.code(202).send({ messageId: result.id });
      },
    );
  }

  app.get(
    '/devtools/pushes',
    {
      schema: {
        operationId: 'devtoolsListPushes',
        tags: ['devtools'],
        security: [{ sessionJwt: [] }],
        summary: 'The pushes the service sent or would have sent, newest first (ids only, never content)',
        querystring: z.object({ limit: limitParam }),
        response: {
          200: z.object({ items: z.array(pushSchema) }).meta({ id: 'DevtoolsPushes' }),
          400: problemSchema,
          401: problemSchema,
        },
      },
    },
    async (request) => {
      const rows = await latestPushes(pool, request.query.limit);
      return {
        items: rows.map((row) => ({
          id: row.id,
          sourceId: row.source_id,
          userId: row.user_id,
          category: row.category,
          kind: row.kind,
          ...(row.conversation_id === null ? {} : { conversationId: row.conversation_id }),
          ...(row.ticket_id === null ? {} : { ticketId: row.ticket_id }),
          ...(row.post_id === null ? {} : { postId: row.post_id }),
          ...(row.notice_id === null ? {} : { noticeId: row.notice_id }),
          csat: row.csat,
          ...(row.platform === null ? {} : { platform: row.platform }),
          ...(row.device_key === null ? {} : { deviceKey: row.device_key }),
          outcome: row.outcome,
          ...(row.code === null ? {} : { code: row.code }),
          attempts: row.attempts,
          createdAt: row.created_at.toISOString(),
        })),
      };
    },
  );

  if (config.ENABLE_DEVTOOLS_RESET_ALL) {
    app.post(
      '/devtools/reset-all',
      {
        schema: {
          operationId: 'devtoolsResetAll',
          tags: ['devtools'],
          security: [{ sessionJwt: [] }],
          summary:
            'Empties every table of the service, then makes the owner again and says how to sign in ' +
            '(needs ENABLE_DEVTOOLS_RESET_ALL=1)',
          response: { 200: resetAllSchema, 401: problemSchema },
        },
      },
      async (request, reply) => {
        const tables = await emptyAllTables(pool);
        request.log.warn(
          { tables: tables.length, userId: request.userId },
          'devtools reset-all emptied every table',
        );
        // The generated password goes to a file only this user can read, as on a first start without a
        // terminal: any session token may call this route, and an owner's password is not for it.
        const seeded = await seedOwnerAfterReset(pool, config, logger);
        const handover = await handOverFirstPassword(seeded, {
          dataDir: config.DATA_DIR,
          interactive: false,
          logger,
        });
        return reply
          .code(200)
          .send({ tablesEmptied: tables.length, owner: ownerAfterReset(seeded, handover) });
      },
    );
  }
};

/** Where the owner made after a reset finds their password, and the login call. */
function ownerAfterReset(
  seeded: SeededOwner | null,
  handover: FirstPasswordHandover | null,
): z.infer<typeof resetAllSchema>['owner'] {
  if (seeded === null) return null;
  const { email } = seeded;
  const login = (password: string) =>
    `POST /admin/auth/login with {"email":"${email}","password":…}: ${password}`;
  if (handover === null) {
    return {
      email,
      password: 'ADMIN_BOOTSTRAP_PASSWORD',
      login: login('the configured ADMIN_BOOTSTRAP_PASSWORD'),
    };
  }
  if (handover.to === 'file') {
    return {
      email,
      password: 'in_file',
      passwordFile: handover.file,
      login: login(`the password is in ${handover.file} (delete it once used)`),
    };
  }
  return {
    email,
    password: 'not_saved',
    login: login(`set a password first with npm run cli -- admins set-password --email ${email}`),
  };
}
