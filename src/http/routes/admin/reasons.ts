import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../../lib/domain-error.ts';
import {
  deleteReason,
  insertReason,
  listReasons,
  type Reason,
  reasonKinds,
  updateReason,
} from '../../../chat/reasons.ts';
import { problemSchema } from '../../problem.ts';
import { adminErrors, adminSecurity, idParams, label } from './conventions.ts';

const reasonSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(reasonKinds),
    title: z.string(),
    order: z.number().int(),
    active: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Reason' });

const order = z.number().int().min(0).max(1_000_000);
const createBody = z
  .strictObject({
    kind: z.enum(reasonKinds),
    title: label(200),
    order: order.optional(),
    active: z.boolean().optional(),
  })
  .meta({ id: 'ReasonCreation' });
const patchBody = z
  .strictObject({ title: label(200).optional(), order: order.optional(), active: z.boolean().optional() })
  .refine((b) => Object.keys(b).length > 0, 'title, order or active is required')
  .meta({ id: 'ReasonPatch' });

const view = (r: Reason) => ({
  ...r,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
});

const tags = ['admin: reasons'];
const security = adminSecurity;
const writeErrors = { ...adminErrors, 400: problemSchema, 404: problemSchema };

export const reasonsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.services;
  app.get(
    '/reasons',
    {
      config: { access: 'reasons.read' },
      schema: {
        operationId: 'adminListReasons',
        tags,
        security,
        summary: 'Every reason, active or not, by kind and order (a short list: not paged)',
        response: {
          200: z.object({ items: z.array(reasonSchema) }).meta({ id: 'ReasonList' }),
          ...adminErrors,
        },
      },
    },
    async () => ({ items: (await listReasons(pool)).map(view) }),
  );

  app.post(
    '/reasons',
    {
      config: { access: 'reasons.manage', audit: { action: 'reasons.create', target: 'reason' } },
      schema: {
        operationId: 'adminCreateReason',
        tags,
        security,
        summary: 'Adds a reason (after the last of its kind unless `order` says otherwise)',
        body: createBody,
        response: { 201: reasonSchema, ...writeErrors },
      },
    },
    async (request, reply) => {
      const created = await insertReason(pool, { id: randomUUID(), ...request.body });
      request.audit = { targetId: created.id, detail: { kind: created.kind } };
      return reply.code(201).send(view(created));
    },
  );

  app.patch(
    '/reasons/:id',
    {
      config: { access: 'reasons.manage', audit: { action: 'reasons.update', target: 'reason' } },
      schema: {
        operationId: 'adminUpdateReason',
        tags,
        security,
        summary: "Changes a reason's title, order or active flag",
        params: idParams,
        body: patchBody,
        response: { 200: reasonSchema, ...writeErrors },
      },
    },
    async (request) => {
      request.audit.detail = { fields: Object.keys(request.body) };
      const updated = await updateReason(pool, request.params.id, request.body);
      if (!updated) throw notFound('No such reason.');
      return view(updated);
    },
  );

  app.delete(
    '/reasons/:id',
    {
      config: { access: 'reasons.manage', audit: { action: 'reasons.delete', target: 'reason' } },
      schema: {
        operationId: 'adminDeleteReason',
        tags,
        security,
        summary: 'Deletes a reason: clients no longer see it; what refers to it keeps its title',
        params: idParams,
        response: { 204: z.null().describe('Deleted'), ...writeErrors },
      },
    },
    async (request, reply) => {
      if (!(await deleteReason(pool, request.params.id))) throw notFound('No such reason.');
      return reply.code(204).send(null);
    },
  );
};
