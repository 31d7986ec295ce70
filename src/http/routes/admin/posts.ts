import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../../lib/domain-error.ts';
import { handlePostCommand, type PostCommand } from '../../../commands/posts.ts';
import { buttonSchema, MAX_BUTTONS, MAX_POST_TEXT, postStatusSchema } from '../../../events/posts.ts';
import { findChannel } from '../../../queries/channels.ts';
import { findAdminPost, listAdminPosts } from '../../../queries/posts.ts';
import { adminCommandContext } from '../../command-context.ts';
import { encodeCursor, instantIdPosition, limitParam } from '../../cursor.ts';
import { HttpProblem, problemSchema } from '../../problem.ts';
import { adminPostSchema } from '../../views/admin/posts.ts';
import { adminErrors, adminSecurity, idParams } from './conventions.ts';
import { attachMediaRoute, detachMediaRoute, type PostAfter } from './post-media.ts';
import { postStatsRoute } from './post-stats.ts';
import { blockText, lineText } from '../../../lib/text-rules.ts';

// A button keeps its id across edits when the panel sends it back, so its clicks stay counted under it.
const buttonInput = buttonSchema.extend({ id: z.uuid().optional(), label: lineText({ max: 40 }) });
const buttons = z.array(buttonInput).max(MAX_BUTTONS);
const text = blockText({ min: 0, max: MAX_POST_TEXT, trim: false });
const withIds = (list: readonly z.infer<typeof buttonInput>[]) =>
  list.map((b) => ({ id: b.id ?? randomUUID(), label: b.label, url: b.url }));

const draftBody = z
  .strictObject({
    text: text.default(''),
    buttons: buttons.default([]),
    commentsEnabled: z.boolean().default(true),
  })
  .meta({ id: 'PostDraft' });
const patchBody = z
  .strictObject({
    text: text.optional(),
    buttons: buttons.optional(),
    commentsEnabled: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'name at least one of text, buttons, commentsEnabled')
  .meta({ id: 'PostPatch' });
const scheduleBody = z
  .strictObject({ publishAt: z.iso.datetime({ offset: true }), notify: z.boolean().default(false) })
  .meta({ id: 'PostSchedule' });
const publishBody = z.strictObject({ notify: z.boolean().default(false) }).meta({ id: 'PostPublish' });
const postParams = z.object({ postId: z.uuid() });
const listQuery = z.object({
  status: postStatusSchema.optional(),
  limit: limitParam,
  cursor: instantIdPosition().optional(),
});

const tags = ['admin: posts'];
const security = adminSecurity;
const writeErrors = { 400: problemSchema, 404: problemSchema, 409: problemSchema, ...adminErrors };
const POST_PROJECTIONS = ['posts'];
const now = () => new Date().toISOString();

/** API.md "Admin API > Posts": drafts, their lifecycle, media and numbers, in the panel's order. */
export const postsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, store, waiter, uploadCaps } = app.services;
  await app.register(multipart, {
    limits: {
      fileSize: Math.max(uploadCaps.file, uploadCaps.image, uploadCaps.video) + 1,
      files: 1,
      fields: 0,
      parts: 2,
    },
  });
  // Read-your-writes: the answer shows the post as the command left it.
  const postAfter: PostAfter = async (position, id) => {
    await waiter.waitFor(POST_PROJECTIONS, position);
    const post = await findAdminPost(pool, id);
    if (!post) throw notFound('No such post.');
    return post;
  };

  app.get(
    '/channels/:id/posts',
    {
      config: { access: 'posts.write' },
      schema: {
        operationId: 'adminListPosts',
        tags,
        security,
        summary: "A channel's posts for the panel, newest first (every status but deleted unless asked for)",
        params: idParams,
        querystring: listQuery,
        response: {
          200: z.object({ items: z.array(adminPostSchema), nextCursor: z.string().nullable() }),
          400: problemSchema,
          ...adminErrors,
        },
      },
    },
    async (request) => {
      const { status, limit, cursor } = request.query;
      const [createdAt = '', id = ''] = cursor?.split('|') ?? [];
      const page = await listAdminPosts(
        pool,
        request.params.id,
        status,
        limit,
        cursor ? { createdAt, id } : null,
      );
      return { items: [...page.items], nextCursor: page.after === null ? null : encodeCursor(page.after) };
    },
  );

  app.get(
    '/posts/:postId',
    {
      config: { access: 'posts.write' },
      schema: {
        operationId: 'adminGetPost',
        tags,
        security,
        summary: 'One post for the panel, whatever its status',
        params: postParams,
        response: { 200: adminPostSchema, 400: problemSchema, 404: problemSchema, ...adminErrors },
      },
    },
    async (request) => {
      const post = await findAdminPost(pool, request.params.postId);
      if (!post) throw new HttpProblem(404, 'not_found', 'No such post.');
      return post;
    },
  );

  app.post(
    '/channels/:id/posts',
    {
      config: { access: 'posts.write', idempotent: true, audit: { action: 'posts.draft', target: 'post' } },
      schema: {
        operationId: 'adminCreatePost',
        tags,
        security,
        summary: 'Drafts a post in a channel',
        params: idParams,
        headers: z.object({ 'idempotency-key': z.string().optional() }),
        body: draftBody,
        response: { 201: adminPostSchema, ...writeErrors },
      },
    },
    async (request, reply) => {
      if (!(await findChannel(pool, request.params.id))) throw notFound('No such channel.');
      const postId = randomUUID();
      request.audit.targetId = postId;
      const { text: body, commentsEnabled } = request.body;
      const command: PostCommand = {
        type: 'draft',
        channelId: request.params.id,
        text: body,
        buttons: withIds(request.body.buttons),
        commentsEnabled,
        at: now(),
      };
      const { position } = await handlePostCommand(store, postId, command, adminCommandContext(request));
      return reply.code(201).send(await postAfter(position, postId));
    },
  );

  /** One lifecycle route: the command made from the request, run on the post, answered with the post. */
  const lifecycle = <Body extends z.ZodType>(
    method: 'post' | 'patch' | 'delete',
    path: string,
    spec: {
      operationId: string;
      permission: 'posts.write' | 'posts.publish';
      action: string;
      summary: string;
      body?: Body;
    },
    commandOf: (body: z.infer<Body>) => PostCommand,
  ) => {
    app.route({
      method: method.toUpperCase(),
      url: `/posts/:postId${path}`,
      config: { access: spec.permission, audit: { action: spec.action, target: 'post' } },
      schema: {
        operationId: spec.operationId,
        tags,
        security,
        summary: spec.summary,
        params: postParams,
        ...(spec.body ? { body: spec.body } : {}),
        response: { 200: adminPostSchema, ...writeErrors },
      },
      handler: async (request) => {
        const { postId } = request.params;
        request.audit.targetId = postId;
        const command = commandOf(request.body as z.infer<Body>);
        const { position } = await handlePostCommand(store, postId, command, adminCommandContext(request));
        return postAfter(position, postId);
      },
    });
  };

  lifecycle(
    'patch',
    '',
    {
      permission: 'posts.write',
      operationId: 'adminUpdatePost',
      action: 'posts.edit',
      summary: "Edits a post's text, buttons or comments switch",
      body: patchBody,
    },
    (body: z.infer<typeof patchBody>) => ({
      type: 'edit',
      ...(body.text === undefined ? {} : { text: body.text }),
      ...(body.buttons === undefined ? {} : { buttons: withIds(body.buttons) }),
      ...(body.commentsEnabled === undefined ? {} : { commentsEnabled: body.commentsEnabled }),
      at: now(),
    }),
  );
  lifecycle(
    'post',
    '/schedule',
    {
      permission: 'posts.publish',
      operationId: 'adminSchedulePost',
      action: 'posts.schedule',
      summary: 'Schedules a draft for publishAt',
      body: scheduleBody,
    },
    (body: z.infer<typeof scheduleBody>) => {
      const at = now();
      if (Date.parse(body.publishAt) <= Date.parse(at)) {
        throw new HttpProblem(400, 'validation_failed', 'publishAt must be in the future.');
      }
      return { type: 'schedule', publishAt: new Date(body.publishAt).toISOString(), notify: body.notify, at };
    },
  );
  lifecycle(
    'post',
    '/unschedule',
    {
      permission: 'posts.publish',
      operationId: 'adminUnschedulePost',
      action: 'posts.unschedule',
      summary: 'Turns a scheduled post back into a draft',
    },
    () => ({ type: 'unschedule', at: now() }),
  );
  lifecycle(
    'post',
    '/publish',
    {
      permission: 'posts.publish',
      operationId: 'adminPublishPost',
      action: 'posts.publish',
      summary: 'Publishes a draft or scheduled post now',
      body: publishBody,
    },
    (body: z.infer<typeof publishBody>) => ({ type: 'publish', notify: body.notify, at: now() }),
  );
  lifecycle(
    'post',
    '/hide',
    {
      permission: 'posts.publish',
      operationId: 'adminHidePost',
      action: 'posts.hide',
      summary: 'Hides a published post from clients',
    },
    () => ({ type: 'hide', at: now() }),
  );
  lifecycle(
    'post',
    '/unhide',
    {
      permission: 'posts.publish',
      operationId: 'adminUnhidePost',
      action: 'posts.unhide',
      summary: 'Shows a hidden post again',
    },
    () => ({ type: 'unhide', at: now() }),
  );
  attachMediaRoute(app, postAfter);
  postStatsRoute(app);
  detachMediaRoute(app, postAfter);

  lifecycle(
    'delete',
    '',
    {
      permission: 'posts.publish',
      operationId: 'adminDeletePost',
      action: 'posts.delete',
      summary: 'Deletes a post (final)',
    },
    () => ({ type: 'delete', at: now() }),
  );
};
