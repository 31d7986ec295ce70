import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { linkedCommentImage } from '../../queries/comments.ts';
import { publishedMedia } from '../../queries/feed.ts';
import {
  fileRequestHeaders,
  fileResponses,
  sendFile,
  signedLinkId,
  signedLinkQuery,
  storedObject,
} from '../file-replies.ts';
import { HttpProblem, problemSchema } from '../problem.ts';

const isUuid = (id: string) => z.uuid().safeParse(id).success;

/**
 * The signed links clients load post media and comment pictures from with no session, as `<img src>`
 * and `<video src>` do (decision 033). The token (decision 013's, bound to the storage key) is the
 * permission: a missing, malformed, wrong or expired one, an unknown object, or one no longer shown
 * (a post hidden or deleted, a comment deleted) is one 403 that tells nothing and serves nothing. What
 * is at a link never changes, so a private cache may keep it while the link lives.
 */
export const publicMediaRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, storage, media } = app.services;
  const refused = () => new HttpProblem(403, 'forbidden', 'This link is not valid.');
  const responses = { ...fileResponses, 403: problemSchema, 429: problemSchema };

  app.get(
    '/files/posts/:postId/:attachmentId',
    {
      schema: {
        operationId: 'downloadSignedPostMedia',
        security: [],
        tags: ['files'],
        summary: "A post's media through a signed link (no session; Range requests answer 206)",
        description:
          'The `url` of `Post.attachments[]`. Links are minted for periods of half ' +
          '`MEDIA_URL_TTL_MINUTES` and work at least that long after their period ends; the bytes may be ' +
          'kept by a private cache until then (`immutable`).',
        params: z.object({ postId: signedLinkId, attachmentId: signedLinkId }),
        querystring: signedLinkQuery,
        headers: fileRequestHeaders,
        response: responses,
      },
    },
    async (request, reply) => {
      const { postId, attachmentId } = request.params;
      const { t } = request.query;
      const found =
        isUuid(postId) && isUuid(attachmentId) ? await publishedMedia(pool, postId, attachmentId) : null;
      if (!found || t === undefined || !media.verify(found.storage_key, t)) throw refused();
      const file = storedObject(attachmentId, found);
      return sendFile(reply, storage, file, request.headers.range, media.cacheControl(t));
    },
  );

  app.get(
    '/files/comments/:commentId',
    {
      schema: {
        operationId: 'downloadSignedCommentImage',
        security: [],
        tags: ['files'],
        summary: "A comment's picture through a signed link (no session)",
        description: 'The `url` of `Comment.image`; links live as post media links do.',
        params: z.object({ commentId: signedLinkId }),
        querystring: signedLinkQuery,
        headers: fileRequestHeaders,
        response: responses,
      },
    },
    async (request, reply) => {
      const { commentId } = request.params;
      const { t } = request.query;
      const found = isUuid(commentId) ? await linkedCommentImage(pool, commentId) : null;
      if (!found || t === undefined || !media.verify(found.storage_key, t)) throw refused();
      const file = storedObject(commentId, found);
      return sendFile(reply, storage, file, request.headers.range, media.cacheControl(t));
    },
  );
};
