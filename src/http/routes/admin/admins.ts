import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { changeAccount, createAdmin, setPassword } from '../../../auth/admin-accounts.ts';
import { roleSchema } from '../../../auth/permissions.ts';
import { listAdmins } from '../../../auth/admin-users.ts';
import { cursorParam, encodeCursor, limitParam } from '../../cursor.ts';
import { problemSchema } from '../../problem.ts';
import { adminSchema, adminView } from '../../views/admin/admins.ts';
import { adminErrors, adminSecurity, idParams, label } from './conventions.ts';
import { secretText } from '../../../lib/text-rules.ts';

const email = z.email().max(254);
const password = secretText({ max: 1024 });

const createBody = z
  .strictObject({ email, name: label(100), role: roleSchema, password })
  .meta({ id: 'AdminCreation' });
const patchBody = z
  .strictObject({ name: label(100).optional(), role: roleSchema.optional() })
  .refine((b) => b.name !== undefined || b.role !== undefined, 'name or role is required')
  .meta({ id: 'AdminPatch' });
const passwordBody = z.strictObject({ password }).meta({ id: 'AdminPassword' });
const listQuery = z.object({ limit: limitParam, cursor: cursorParam(z.email()).optional() });
const adminList = z
  .object({ items: z.array(adminSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'AdminList' });

const tags = ['admin: admins'];
const security = adminSecurity;
const writeErrors = { ...adminErrors, 400: problemSchema, 404: problemSchema, 409: problemSchema };

export const adminsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, admin } = app.services;
  const deps = { pool, forget: admin.sessions.forget };

  app.get(
    '/admins',
    {
      config: { access: 'admins.read' },
      schema: {
        operationId: 'adminListAdmins',
        tags,
        security,
        summary: 'Every admin account, active or not, by email',
        querystring: listQuery,
        response: { 200: adminList, 400: problemSchema, ...adminErrors },
      },
    },
    async (request) => {
      const page = await listAdmins(pool, request.query.limit, request.query.cursor ?? null);
      return {
        items: page.items.map(adminView),
        nextCursor: page.after === null ? null : encodeCursor(page.after),
      };
    },
  );

  app.post(
    '/admins',
    {
      config: { access: 'admins.manage', audit: { action: 'admins.create', target: 'admin' } },
      schema: {
        operationId: 'adminCreateAdmin',
        tags,
        security,
        summary: 'Creates an admin account; 409 when the email is taken',
        description: 'The password must have at least 15 characters and not be a common one.',
        body: createBody,
        response: { 201: adminSchema, ...writeErrors },
      },
    },
    async (request, reply) => {
      request.audit.detail = { role: request.body.role };
      const created = await createAdmin(deps, request.body);
      request.audit.targetId = created.id;
      return reply.code(201).send(adminView(created));
    },
  );

  app.patch(
    '/admins/:id',
    {
      config: { access: 'admins.manage', audit: { action: 'admins.update', target: 'admin' } },
      schema: {
        operationId: 'adminUpdateAdmin',
        tags,
        security,
        summary: "Changes an admin's name or role; 409 when it would leave no active owner",
        params: idParams,
        body: patchBody,
        response: { 200: adminSchema, ...writeErrors },
      },
    },
    async (request) => {
      const { name, role } = request.body;
      request.audit.detail = { fields: Object.keys(request.body), ...(role ? { role } : {}) };
      return adminView(await changeAccount(deps, request.params.id, { name, role }));
    },
  );

  for (const [verb, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    app.post(
      `/admins/:id/${verb}`,
      {
        config: { access: 'admins.manage', audit: { action: `admins.${verb}`, target: 'admin' } },
        schema: {
          operationId: active ? 'adminActivateAdmin' : 'adminDeactivateAdmin',
          tags,
          security,
          summary: active
            ? 'Activates an admin account (sessions from before its deactivation stay ended)'
            : 'Deactivates an admin account and ends its sessions; 409 for the last active owner',
          params: idParams,
          response: { 200: adminSchema, ...writeErrors },
        },
      },
      async (request) => adminView(await changeAccount(deps, request.params.id, { active })),
    );
  }

  app.post(
    '/admins/:id/password',
    {
      config: { access: 'admins.manage', audit: { action: 'admins.set_password', target: 'admin' } },
      schema: {
        operationId: 'adminSetAdminPassword',
        tags,
        security,
        summary: "Sets an admin's password and ends every session of that admin",
        description: 'At least 15 characters, not a common password, not the email address.',
        params: idParams,
        body: passwordBody,
        response: { 204: z.null().describe('Password set'), ...writeErrors },
      },
    },
    async (request, reply) => {
      await setPassword(deps, request.params.id, request.body.password);
      return reply.code(204).send(null);
    },
  );
};
