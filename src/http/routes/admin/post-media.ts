import { z } from 'zod';
import { attachMedia, handlePostCommand, type PostCommand } from '../../../commands/posts.ts';
import type { Position } from '../../../events/envelope.ts';
import type { AdminPostView } from '../../../queries/posts.ts';
import { adminCommandContext } from '../../command-context.ts';
import { problemSchema } from '../../problem.ts';
import { adminPostSchema } from '../../views/admin/posts.ts';
import { type AdminApp, adminErrors, adminSecurity } from './conventions.ts';
import { documentMultipart } from '../../multipart-docs.ts';
import { theFilePart } from '../../multipart-form.ts';

/** The post as a command left it, once the projection shows it (read-your-writes). */
export type PostAfter = (position: Position | null, postId: string) => Promise<AdminPostView>;

const tags = ['admin: posts'];
const security = adminSecurity;
const postParams = z.object({ postId: z.uuid() });
const writeErrors = { 400: problemSchema, 404: problemSchema, 409: problemSchema, ...adminErrors };

// Added by posts.ts, which keeps the order of the panel's post routes; multipart is registered there.

/** `POST /admin/posts/:postId/attachments`: the bytes through the upload checks, then the post's command. */
export function attachMediaRoute(app: AdminApp, postAfter: PostAfter): void {
  const { postMedia } = app.services;
  app.post(
    '/posts/:postId/attachments',
    {
      config: {
        access: 'posts.write',
        audit: { action: 'posts.attach', target: 'post' },
        swaggerTransform: documentMultipart({
          fields: { file: { kind: 'file', description: 'An image, an MP4, a PDF or a text file' } },
          required: ['file'],
        }),
      },
      schema: {
        operationId: 'adminUploadPostAttachment',
        tags,
        security,
        summary: 'Adds media to a post (multipart field `file`: an image, an MP4, a PDF or a text file)',
        consumes: ['multipart/form-data'],
        params: postParams,
        response: { 200: adminPostSchema, 413: problemSchema, 415: problemSchema, ...writeErrors },
      },
    },
    async (request) => {
      const { postId } = request.params;
      request.audit.targetId = postId;
      const part = await theFilePart(request);
      const { position } = await attachMedia(postMedia, postId, part.file, adminCommandContext(request));
      return postAfter(position, postId);
    },
  );
}

/** `DELETE /admin/posts/:postId/attachments/:attachmentId`. */
export function detachMediaRoute(app: AdminApp, postAfter: PostAfter): void {
  const { store } = app.services;
  app.delete(
    '/posts/:postId/attachments/:attachmentId',
    {
      config: { access: 'posts.write', audit: { action: 'posts.detach', target: 'post' } },
      schema: {
        operationId: 'adminRemovePostAttachment',
        tags,
        security,
        summary: 'Removes media from a post (its bytes stay, as the post history refers to them)',
        params: postParams.extend({ attachmentId: z.uuid() }),
        response: { 200: adminPostSchema, ...writeErrors },
      },
    },
    async (request) => {
      const { postId, attachmentId } = request.params;
      request.audit.targetId = postId;
      const command: PostCommand = { type: 'removeAttachment', attachmentId, at: new Date().toISOString() };
      const { position } = await handlePostCommand(store, postId, command, adminCommandContext(request));
      return postAfter(position, postId);
    },
  );
}
