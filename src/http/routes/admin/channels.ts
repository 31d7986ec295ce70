import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { handleChannelCommand } from '../../../commands/channels.ts';
import { notFound } from '../../../lib/domain-error.ts';
import {
  channelSettingsSchema,
  commentRateSchema,
  DEFAULT_AUTO_HIDE_REPORTS,
} from '../../../events/channels.ts';
import type { Position } from '../../../events/envelope.ts';
import { findChannel, listChannels } from '../../../queries/channels.ts';
import { adminCommandContext } from '../../command-context.ts';
import { problemSchema } from '../../problem.ts';
import { adminErrors, adminSecurity, idParams } from './conventions.ts';
import { blockText, lineText } from '../../../lib/text-rules.ts';

const channelSchema = channelSettingsSchema
  .extend({ id: z.uuid(), createdAt: z.iso.datetime(), updatedAt: z.iso.datetime() })
  .meta({ id: 'Channel' });

const DEFAULT_REACTIONS = ['👍', '❤️', '🔥', '😂', '😮', '😢'];
const settings = channelSettingsSchema.shape;
const createBody = z
  .strictObject({
    title: lineText({ max: 100 }),
    description: blockText({ min: 0, max: 1000 }).default(''),
    avatarUrl: settings.avatarUrl.default(null),
    allowedReactions: settings.allowedReactions.default(DEFAULT_REACTIONS),
    commentsEnabled: settings.commentsEnabled.default(true),
    // API.md's default slow mode: one comment per 10 s with a burst of 3.
    commentRate: commentRateSchema.default({ intervalSeconds: 10, burst: 3 }),
    autoHideReports: settings.autoHideReports.default(DEFAULT_AUTO_HIDE_REPORTS),
  })
  .meta({ id: 'ChannelCreation' });
const patchBody = z
  .strictObject({
    title: lineText({ max: 100 }).optional(),
    description: blockText({ min: 0, max: 1000 }).optional(),
    avatarUrl: settings.avatarUrl.optional(),
    allowedReactions: settings.allowedReactions.optional(),
    commentsEnabled: settings.commentsEnabled.optional(),
    commentRate: commentRateSchema.optional(),
    autoHideReports: settings.autoHideReports.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'name at least one setting')
  .meta({ id: 'ChannelPatch' });

const tags = ['admin: channels'];
const security = adminSecurity;
const CHANNEL_PROJECTIONS = ['channels'];

export const channelsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store, waiter } = app.services;
  // Read-your-writes: the answer shows the channel as the command left it.
  const channelAfter = async (position: Position | null, id: string) => {
    await waiter.waitFor(CHANNEL_PROJECTIONS, position);
    const channel = await findChannel(pool, id);
    if (!channel) throw notFound('No such channel.');
    return channel;
  };

  app.get(
    '/channels',
    {
      config: { access: 'signed-in' },
      schema: {
        operationId: 'adminListChannels',
        tags,
        security,
        summary: 'Every channel with its settings (a short list: not paged)',
        response: {
          200: z.object({ items: z.array(channelSchema) }).meta({ id: 'ChannelList' }),
          ...adminErrors,
        },
      },
    },
    async () => ({ items: [...(await listChannels(pool))] }),
  );

  app.post(
    '/channels',
    {
      config: {
        access: 'channels.manage',
        idempotent: true,
        audit: { action: 'channels.create', target: 'channel' },
      },
      schema: {
        operationId: 'adminCreateChannel',
        tags,
        security,
        summary: 'Creates a channel',
        headers: z.object({ 'idempotency-key': z.string().optional() }),
        body: createBody,
        response: { 201: channelSchema, 400: problemSchema, 409: problemSchema, ...adminErrors },
      },
    },
    async (request, reply) => {
      const id = randomUUID();
      request.audit.targetId = id;
      const command = { type: 'create' as const, settings: request.body, at: new Date().toISOString() };
      const { position } = await handleChannelCommand(store, id, command, adminCommandContext(request));
      return reply.code(201).send(await channelAfter(position, id));
    },
  );

  app.patch(
    '/channels/:id',
    {
      config: { access: 'channels.manage', audit: { action: 'channels.update', target: 'channel' } },
      schema: {
        operationId: 'adminUpdateChannel',
        tags,
        security,
        summary: "Changes a channel's settings (title, description, avatar, reactions, comments)",
        params: idParams,
        body: patchBody,
        response: { 200: channelSchema, 400: problemSchema, 404: problemSchema, ...adminErrors },
      },
    },
    async (request) => {
      request.audit.detail = { fields: Object.keys(request.body) };
      const command = { type: 'edit' as const, change: request.body, at: new Date().toISOString() };
      const { position } = await handleChannelCommand(
        store,
        request.params.id,
        command,
        adminCommandContext(request),
      );
      return channelAfter(position, request.params.id);
    },
  );
};
