import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { notFound } from '../../../lib/domain-error.ts';
import { commentImage, findPostComment } from '../../../queries/comments.ts';
import { isCommentModerator } from '../../../queries/moderation.ts';
import { fileRequestHeaders, fileResponses, sendFile, storedObject } from '../../file-replies.ts';
import { userOf } from '../../plugins/auth.ts';
import { clientErrors as errors, commentParams, sessionSecurity as security } from './conventions.ts';

/** A comment's picture, for those who may see the comment. */
export const commentImagesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, storage } = app.services;

  app.get(
    '/channel/:id/posts/:postId/comments/:commentId/image',
    {
      schema: {
        operationId: 'downloadCommentImage',
        tags: ['comments'],
        security,
        summary: "A comment's picture (visible comments; hidden ones for moderators)",
        params: commentParams,
        headers: fileRequestHeaders,
        response: { ...fileResponses, ...errors },
      },
    },
    async (request, reply) => {
      const { id: channelId, postId, commentId } = request.params;
      const comment = await findPostComment(pool, { channelId, postId, commentId });
      if (!comment) throw notFound('No such comment.');
      const visible =
        comment.status === 'visible' ||
        (comment.status === 'hidden' && (await isCommentModerator(pool, comment.channelId, userOf(request))));
      const image = visible ? await commentImage(pool, comment.id) : null;
      if (!image) throw notFound('No such image.');
      const file = storedObject(comment.id, image);
      return sendFile(reply, storage, file, request.headers.range, 'private, no-cache');
    },
  );
};
