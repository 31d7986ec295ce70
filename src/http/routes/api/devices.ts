import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { registerDevice, unregisterDevice } from '../../../commands/devices.ts';
import { holdersOfToken } from '../../../queries/devices.ts';
import { userCommandContext } from '../../command-context.ts';
import { userOf } from '../../plugins/auth.ts';
import { problemSchema } from '../../problem.ts';
import { idempotencyKeyHeader as idempotencyKey, sessionSecurity as security } from './conventions.ts';
import { idText } from '../../../lib/text-rules.ts';
import { keptTelemetry, telemetrySchema } from './device-telemetry.ts';

// An FCM registration token is a long opaque string; a messenger chat id is an integer.
const mobileToken = z.string().regex(/^[\x21-\x7e]{1,4096}$/, 'must be 1-4096 visible ASCII characters');
const chatId = z.string().regex(/^-?\d{1,20}$/, 'must be the messenger chat id (an integer)');

const registerBody = z
  .discriminatedUnion('platform', [
    z.strictObject({
      platform: z.literal('mobile'),
      token: mobileToken,
      telemetry: telemetrySchema.optional(),
    }),
    z.strictObject({ platform: z.literal('tma'), token: chatId, telemetry: telemetrySchema.optional() }),
  ])
  .meta({ id: 'DeviceRegistration' });
const unregisterBody = z.strictObject({ token: idText({ max: 4096 }) }).meta({ id: 'DeviceUnregistration' });

const errors = {
  400: problemSchema,
  401: problemSchema,
  409: problemSchema,
  422: problemSchema,
  429: problemSchema,
};
const tags = ['devices'];
const DEVICE_PROJECTIONS = ['devices'];

export const devicesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store, waiter, hardwareIdKey } = app.services;
  const holdersOf = (token: string) => holdersOfToken(pool, token);

  app.post(
    '/devices/register',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'registerDevice',
        tags,
        security,
        summary:
          "Registers the caller's device for pushes; the same (user, token, telemetry) again changes nothing",
        headers: idempotencyKey,
        body: registerBody,
        response: { 200: z.object({ registered: z.literal(true) }), ...errors },
      },
    },
    async (request) => {
      const { platform, token, telemetry } = request.body;
      const { position } = await registerDevice(
        { store, holdersOf },
        { userId: userOf(request), platform, token, telemetry: keptTelemetry(telemetry, hardwareIdKey) },
        userCommandContext(request),
      );
      await waiter.waitFor(DEVICE_PROJECTIONS, position);
      return { registered: true as const };
    },
  );

  app.post(
    '/devices/unregister',
    {
      config: { idempotent: true },
      schema: {
        operationId: 'unregisterDevice',
        tags,
        security,
        summary: "Unregisters one of the caller's devices (204 also when it is already gone)",
        headers: idempotencyKey,
        body: unregisterBody,
        response: { 204: z.null().describe('Unregistered'), ...errors },
      },
    },
    async (request, reply) => {
      const { position } = await unregisterDevice(
        { store },
        { userId: userOf(request), token: request.body.token },
        userCommandContext(request),
      );
      await waiter.waitFor(DEVICE_PROJECTIONS, position);
      return reply.code(204).send(null);
    },
  );
};
