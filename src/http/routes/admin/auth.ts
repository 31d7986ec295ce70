import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { attemptLogin, logoutEverywhere } from '../../../auth/admin-accounts.ts';
import { MAX_PASSWORD_LENGTH } from '../../../auth/passwords.ts';
import { adminOf } from '../../plugins/admin-auth.ts';
import { HttpProblem, problemSchema } from '../../problem.ts';
import { adminSchema, adminView } from '../../views/admin/admins.ts';
import { adminErrors, adminSecurity } from './conventions.ts';
import { idText, secretText } from '../../../lib/text-rules.ts';

// No format check on the email: every wrong login gets the same 401, whatever was wrong with it. Only
// text that is not text at all (decision 024) is a 400.
const loginBody = z
  .strictObject({
    email: idText({ max: 320 }),
    password: secretText({ max: MAX_PASSWORD_LENGTH * 4 }),
  })
  .meta({ id: 'AdminLogin' });

const loginResponse = z
  .object({ token: z.string(), expiresAt: z.iso.datetime(), admin: adminSchema })
  .meta({ id: 'AdminSession' });

const tags = ['admin: session'];

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.services;
  const { sessions, tokens, throttle } = app.services.admin;

  app.post(
    '/auth/login',
    {
      config: { access: 'public', audit: { action: 'auth.login', target: 'admin' } },
      schema: {
        operationId: 'adminLogin',
        security: [],
        tags,
        summary: 'Signs an admin in: a session token valid for ADMIN_SESSION_TTL_MINUTES',
        description:
          'Every refusal is the same 401 invalid_credentials. After ADMIN_LOGIN_MAX_FAILURES failures from ' +
          'one client IP within ADMIN_LOGIN_WINDOW_MINUTES, that IP gets 429 login_locked with Retry-After ' +
          'for ADMIN_LOGIN_LOCK_MINUTES; repeated failures for one account slow its logins down. Attempts ' +
          'are counted before the password is checked, so requests sent at once get no more checks: the ' +
          'ones past the limit are 429 login_locked too.',
        body: loginBody,
        response: { 200: loginResponse, 400: problemSchema, 401: problemSchema, 429: problemSchema },
      },
    },
    async (request) => {
      const outcome = await attemptLogin({ pool, throttle }, { ...request.body, clientIp: request.clientIp });
      switch (outcome.kind) {
        case 'locked':
          throw new HttpProblem(429, 'login_locked', 'Too many failed logins; try again later.', {
            'retry-after': String(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000))),
          });
        case 'refused':
          request.audit = {
            ...(outcome.adminId === null ? {} : { targetId: outcome.adminId }),
            detail: { reason: outcome.reason },
            outcome: 'failed',
          };
          throw new HttpProblem(401, 'invalid_credentials', 'The email or the password is wrong.');
        case 'signed_in': {
          const { admin } = outcome;
          request.audit = { adminId: admin.id, targetId: admin.id };
          const { token, expiresAt } = tokens.mint({
            adminId: admin.id,
            sessionVersion: admin.sessionVersion,
          });
          return { token, expiresAt: expiresAt.toISOString(), admin: adminView(admin) };
        }
      }
    },
  );

  app.get(
    '/me',
    {
      config: { access: 'signed-in' },
      schema: {
        operationId: 'adminGetMe',
        tags,
        security: adminSecurity,
        summary: 'The signed-in admin, with the permissions of its role',
        response: { 200: adminSchema, ...adminErrors },
      },
    },
    (request) => adminView(adminOf(request)),
  );

  app.post(
    '/auth/logout-all',
    {
      config: { access: 'signed-in', audit: { action: 'auth.logout_all', target: 'admin' } },
      schema: {
        operationId: 'adminLogoutEverywhere',
        tags,
        security: adminSecurity,
        summary: "Ends every session of the signed-in admin (this token's included)",
        response: { 204: z.null().describe('Signed out everywhere'), ...adminErrors },
      },
    },
    async (request, reply) => {
      const admin = adminOf(request);
      request.audit.targetId = admin.id;
      await logoutEverywhere({ pool, forget: sessions.forget }, admin.id);
      return reply.code(204).send(null);
    },
  );
};
