import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { supportExportNotice } from '../../../chat/erase-contact.ts';
import {
  type ErasureProgress,
  erasureSteps,
  latestErasure,
  requestErasure,
} from '../../../db/user-erasures.ts';
import { notFound } from '../../../lib/domain-error.ts';
import { heldDataOf } from '../../../queries/privacy.ts';
import { adminOf } from '../../plugins/admin-auth.ts';
import { problemSchema } from '../../problem.ts';
import { userDataExportSchema, userDataExportView } from '../../views/admin/privacy-export.ts';
import { adminErrors, adminSecurity as security, userIdSchema } from './conventions.ts';

const tags = ['admin: privacy'];
const userParams = z.object({ userId: userIdSchema });

/** The name the export is saved under: the user id with anything but `[A-Za-z0-9._-]` as `_`, kept short. */
const exportFileName = (userId: string): string =>
  `user-${userId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}-export.json`;

const erasureSchema = z
  .object({
    erasureId: z.uuid(),
    userId: z.string(),
    requestedBy: z.string().describe('the admin who asked, or `cli`'),
    requestedAt: z.iso.datetime(),
    steps: z
      .array(z.object({ step: z.enum(erasureSteps), doneAt: z.iso.datetime().nullable() }))
      .describe('in the order they are done; `doneAt` null: still to do'),
    finishedAt: z.iso.datetime().nullable(),
    attempts: z.number().int().describe('failed attempts so far; each is retried later'),
    lastError: z.string().nullable().describe("the class of the last attempt's failure"),
  })
  .meta({ id: 'UserErasure' });

const erasureView = (p: ErasureProgress): z.infer<typeof erasureSchema> => ({
  ...p,
  steps: erasureSteps.map((step) => ({ step, doneAt: p.steps[step] ?? null })),
});

/** What privacy law asks of the service about one user (decision 048). */
export const privacyRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.services;

  app.get(
    '/users/:userId/export',
    {
      config: { access: 'users.export', audit: { action: 'users.export', target: 'user' } },
      schema: {
        operationId: 'adminExportUserData',
        tags,
        security,
        summary: 'Everything the service holds about a user, as one JSON file (GDPR art. 15)',
        description:
          'From the read tables, device tokens masked. A user the service holds nothing about gets 200 with ' +
          'every section empty: user ids come from the host, so "never seen" and "nothing held" are the ' +
          'same here. The conversations are at Intercom: `supportProvider` says who can get them.',
        'x-download': true,
        params: userParams,
        response: { 200: userDataExportSchema, 400: problemSchema, ...adminErrors },
      },
    },
    async (request, reply) => {
      const { userId } = request.params;
      // The audit row names the user and the action only: nothing of what the export holds.
      request.audit.targetId = userId;
      const held = await heldDataOf(pool, userId);
      void reply.header('content-disposition', `attachment; filename="${exportFileName(userId)}"`);
      const notice = supportExportNotice(userId, held.supportContact?.contactId ?? null);
      return userDataExportView(userId, new Date(), held, notice);
    },
  );

  app.post(
    '/users/:userId/erasure',
    {
      config: { access: 'users.erase', audit: { action: 'users.erase', target: 'user' } },
      schema: {
        operationId: 'adminEraseUser',
        tags,
        security,
        summary: "Erases a user (GDPR art. 17): answers 202 with the erasure's progress",
        description:
          "The erasure job deletes the user's data key (what it sealed in the event log reads as erased), " +
          'devices, settings, read markers, push data, files and the contact at Intercom, and records the ' +
          'erasure so that projections forget the user. Comments, ratings and complaints stay, without the ' +
          'user. Idempotent: while one is under way, or while nothing is held since the last one, the same ' +
          'erasure answers. A later request from the same user id starts a new, empty user.',
        params: userParams,
        response: { 202: erasureSchema, 400: problemSchema, ...adminErrors },
      },
    },
    async (request, reply) => {
      const { userId } = request.params;
      request.audit.targetId = userId;
      const { progress, created } = await requestErasure(pool, userId, adminOf(request).id);
      request.audit.detail = { created };
      return reply.code(202).send(erasureView(progress));
    },
  );

  app.get(
    '/users/:userId/erasure',
    {
      config: { access: 'users.erase' },
      schema: {
        operationId: 'adminGetUserErasure',
        tags,
        security,
        summary: "The user's latest erasure and how far it got",
        params: userParams,
        response: { 200: erasureSchema, 400: problemSchema, 404: problemSchema, ...adminErrors },
      },
    },
    async (request) => {
      const progress = await latestErasure(pool, request.params.userId);
      if (progress === null) throw notFound('no erasure was asked for this user');
      return erasureView(progress);
    },
  );
};
