import { create as contentDisposition } from 'content-disposition';
import type { FastifyReply } from 'fastify';
import parseRange from 'range-parser';
import type { FileRecord } from '../files/file-records.ts';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import { z } from 'zod';
import { HttpProblem, problemSchema } from './problem.ts';

/** The request headers and answers of a route that serves stored bytes, for its schema. */
export const fileRequestHeaders = z.object({ range: z.string().max(200).optional() });

/**
 * What a signed link carries besides its path: the token. Any length passes here, and so do the path's
 * ids, so that whatever is wrong with a link is the route's one 403 that tells nothing.
 */
export const signedLinkQuery = z.object({ t: z.string().optional() });
export const signedLinkId = z.string();
export const fileResponses = {
  // `format: binary` marks the answer as bytes for the document (src/http/openapi/responses.ts).
  200: z.any().meta({ description: 'The whole file', format: 'binary' }),
  206: z.any().meta({ description: 'The requested range of the file', format: 'binary' }),
  416: problemSchema,
};

/** How a browser offers a file opened on its own: shown in the tab, or saved. */
export type Disposition = 'inline' | 'attachment';

/**
 * A stored object (a post's media, a comment's picture) as `sendFile` takes it, named by its id and the
 * subtype of its content type (`<id>.png`): the upload's own name is not kept for these. Images and
 * video are media to show, so inline (decision 033); a PDF or a text stays an attachment.
 */
export function storedObject(
  id: string,
  row: { readonly storage_key: string; readonly content_type: string; readonly size: number },
) {
  const ext = row.content_type.split('/')[1]?.split(';')[0] ?? 'bin';
  const disposition: Disposition = /^(image|video)\//.test(row.content_type) ? 'inline' : 'attachment';
  return {
    storageKey: row.storage_key,
    contentType: row.content_type,
    size: row.size,
    name: `${id}.${ext}`,
    disposition,
  };
}

/**
 * Sends a stored file the way API.md says: the detected type, under its sanitised name (an attachment
 * unless it says inline), never sniffed, with a sandbox CSP, and with single-range requests (206) so
 * video can seek.
 */
export async function sendFile(
  reply: FastifyReply,
  storage: ObjectStorage,
  file: Pick<FileRecord, 'storageKey' | 'contentType' | 'size' | 'name'> & {
    readonly disposition?: Disposition;
  },
  rangeHeader: string | undefined,
  cacheControl: string,
): Promise<FastifyReply> {
  void reply.headers({
    'content-type': file.contentType,
    'content-disposition': contentDisposition(file.name, { type: file.disposition ?? 'attachment' }),
    'x-content-type-options': 'nosniff',
    // A file opened directly in a tab can run nothing and reach nothing.
    'content-security-policy': "default-src 'none'; sandbox",
    'cache-control': cacheControl,
    'accept-ranges': 'bytes',
  });
  // Only byte ranges are served; another unit (`items=0-1`) is ignored, as RFC 9110 allows.
  const ranges =
    rangeHeader === undefined || !/^\s*bytes=/i.test(rangeHeader)
      ? undefined
      : parseRange(file.size, rangeHeader, { combine: true });
  if (ranges === -1) {
    throw new HttpProblem(416, 'range_not_satisfiable', 'The range is outside the file.', {
      'content-range': `bytes */${file.size}`,
    });
  }
  // A malformed header or several ranges: the whole file (RFC 9110 lets a server ignore Range).
  const range = Array.isArray(ranges) && ranges.length === 1 ? ranges[0] : undefined;
  const stored = await storage.get(file.storageKey, range);
  if (!stored) throw new HttpProblem(404, 'not_found', 'The file is gone.');
  if (range) {
    void reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${file.size}`);
    void reply.header('content-length', String(range.end - range.start + 1));
  } else {
    void reply.header('content-length', String(file.size));
  }
  return reply.send(stored.body);
}
