import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findFile } from '../../files/file-records.ts';
import { verifyFileLinkToken } from '../../files/signed-urls.ts';
import {
  fileRequestHeaders,
  fileResponses,
  sendFile,
  signedLinkId,
  signedLinkQuery,
} from '../file-replies.ts';
import { HttpProblem, problemSchema } from '../problem.ts';

/**
 * `GET /files/:id?t=`: the link the support provider gets for a chat attachment. No session: the token
 * is the permission, so a missing, malformed, wrong or expired one (or an unknown file) is one 403 that
 * tells nothing and serves nothing.
 */
export const publicFilesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, storage, config } = app.services;
  const secret = config.FILE_URL_SECRET;
  const refused = () => new HttpProblem(403, 'forbidden', 'This link is not valid.');
  app.get(
    '/files/:id',
    {
      schema: {
        operationId: 'downloadSignedFile',
        security: [],
        tags: ['files'],
        summary: 'Downloads a file through a signed, short-lived link (no session)',
        params: z.object({ id: signedLinkId }),
        querystring: signedLinkQuery,
        headers: fileRequestHeaders,
        response: {
          ...fileResponses,
          403: problemSchema,
          429: problemSchema,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const file = z.uuid().safeParse(id).success ? await findFile(pool, id) : null;
      if (!file || !verifyFileLinkToken(secret, file.storageKey, request.query.t)) throw refused();
      // Links are bearer tokens that expire: no shared cache may keep the bytes.
      return sendFile(reply, storage, file, request.headers.range, 'private, no-store');
    },
  );
};
