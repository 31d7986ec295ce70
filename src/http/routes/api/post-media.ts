import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { visibleAttachment } from '../../../queries/feed.ts';
import { fileRequestHeaders, fileResponses, sendFile, storedObject } from '../../file-replies.ts';
import { HttpProblem } from '../../problem.ts';
import { clientErrors as errors, postParams, sessionSecurity as security } from './conventions.ts';

const tags = ['channel'];

/** A published post's media, for clients. */
export const postMediaRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, storage } = app.services;

  app.get(
    '/channel/:id/posts/:postId/attachments/:attachmentId',
    {
      schema: {
        operationId: 'downloadPostAttachment',
        tags,
        security,
        summary: "A published post's media (Range requests answer 206)",
        params: postParams.extend({ attachmentId: z.uuid() }),
        headers: fileRequestHeaders,
        response: { ...fileResponses, ...errors },
      },
    },
    async (request, reply) => {
      const { id, postId, attachmentId } = request.params;
      const found = await visibleAttachment(pool, id, postId, attachmentId);
      if (!found) throw new HttpProblem(404, 'not_found', 'No such attachment.');
      // Published media is the same for every reader: a private cache may keep it.
      const file = storedObject(attachmentId, found);
      return sendFile(reply, storage, file, request.headers.range, 'private, max-age=3600');
    },
  );
};
