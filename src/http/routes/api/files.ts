import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findFile } from '../../../files/file-records.ts';
import { storeChatAttachment } from '../../../files/chat-attachments.ts';
import { fileResponses, sendFile } from '../../file-replies.ts';
import { documentMultipart } from '../../multipart-docs.ts';
import { theFilePart } from '../../multipart-form.ts';
import { userOf } from '../../plugins/auth.ts';
import { HttpProblem, problemSchema } from '../../problem.ts';

const uploadedSchema = z
  .object({ id: z.uuid(), name: z.string(), contentType: z.string(), size: z.number().int() })
  .meta({ id: 'UploadedFile' });

const tags = ['files'];
const security = [{ sessionJwt: [] }];

export const filesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { pool, storage, uploadCaps: caps } = app.services;
  await app.register(multipart, {
    // A backstop only: each type's own cap is enforced while the bytes stream (inspectUpload).
    limits: { fileSize: Math.max(caps.file, caps.image, caps.video) + 1, files: 1, fields: 0, parts: 2 },
  });

  app.post(
    '/files/upload',
    {
      config: {
        swaggerTransform: documentMultipart({
          fields: { file: { kind: 'file', description: 'The file; its type is read from its bytes' } },
          required: ['file'],
        }),
      },
      schema: {
        operationId: 'uploadFile',
        tags,
        security,
        summary: 'Uploads a file (multipart/form-data, field `file`): its type is read from its bytes',
        description:
          'Allowed: JPEG, PNG, GIF, WEBP, BMP (up to MAX_IMAGE_MB), MP4 (MAX_VIDEO_MB), PDF and plain UTF-8 ' +
          'text (MAX_FILE_MB). Anything else is 415 upload_type_not_allowed; over the cap is 413 ' +
          'upload_too_large, cut off as soon as the cap is passed; an image declaring more than ' +
          'MAX_IMAGE_PIXELS pixels is 413 image_too_large, refused from its header before anything is stored.',
        consumes: ['multipart/form-data'],
        response: {
          201: uploadedSchema,
          400: problemSchema,
          401: problemSchema,
          413: problemSchema,
          415: problemSchema,
          429: problemSchema,
        },
      },
    },
    async (request, reply) => {
      const ownerId = userOf(request);
      const part = await theFilePart(request);
      try {
        const file = await storeChatAttachment({ pool, storage, caps }, ownerId, part);
        return await reply.code(201).send({
          id: file.id,
          name: file.name,
          contentType: file.contentType,
          size: file.size,
        });
      } catch (error) {
        // The rest of a refused upload is not worth reading: close the connection after the answer.
        void reply.header('connection', 'close');
        throw error;
      }
    },
  );

  app.get(
    '/files/:id',
    {
      schema: {
        operationId: 'downloadFile',
        tags,
        security,
        summary: "Downloads one of the caller's files (Range requests answer 206)",
        params: z.object({ id: z.uuid() }),
        headers: z.object({ range: z.string().max(200).optional() }),
        response: {
          ...fileResponses,
          ...{ 400: problemSchema, 401: problemSchema, 403: problemSchema, 404: problemSchema },
        },
      },
    },
    async (request, reply) => {
      const file = await findFile(pool, request.params.id);
      if (!file) throw new HttpProblem(404, 'not_found', 'No such file.');
      if (file.ownerId !== userOf(request)) throw new HttpProblem(403, 'forbidden', 'Not your file.');
      return sendFile(reply, storage, file, request.headers.range, 'private, max-age=0');
    },
  );
};
