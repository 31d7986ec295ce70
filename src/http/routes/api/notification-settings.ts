import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  notificationSettingsSchema,
  readNotificationSettings,
  updateNotificationSettings,
} from '../../../push/notification-settings.ts';
import { userOf } from '../../plugins/auth.ts';
import { problemSchema } from '../../problem.ts';

const patchSchema = z
  .strictObject({
    chatMessages: z.boolean().optional(),
    ticketUpdates: z.boolean().optional(),
    systemNotices: z.boolean().optional(),
  })
  .meta({ id: 'NotificationSettingsPatch' });

const errors = { 400: problemSchema, 401: problemSchema, 429: problemSchema };
const tags = ['settings'];
const security = [{ sessionJwt: [] }];

export const notificationSettingsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool } = app.services;
  app.get(
    '/settings/notifications',
    {
      schema: {
        operationId: 'getNotificationSettings',
        tags,
        security,
        summary: "The caller's notification preferences (all on by default)",
        response: { 200: notificationSettingsSchema, ...errors },
      },
    },
    (request) => readNotificationSettings(pool, userOf(request)),
  );
  app.put(
    '/settings/notifications',
    {
      schema: {
        operationId: 'updateNotificationSettings',
        tags,
        security,
        summary: 'Updates any subset of the notification preferences',
        body: patchSchema,
        response: { 200: notificationSettingsSchema, ...errors },
      },
    },
    (request) => updateNotificationSettings(pool, userOf(request), request.body),
  );
};
