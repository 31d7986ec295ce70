import { PassThrough, type Readable } from 'node:stream';
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { HttpProblem } from './problem.ts';

export const oneFileOnly = () =>
  new HttpProblem(400, 'validation_failed', 'Send one file in the multipart field `file`, nothing else.');

/**
 * A form's file part that must be its last: its bytes flow on as they come, but the stream ends only
 * once the form has ended with no other part. Another part, a parser limit or a broken form errors the
 * stream instead, so whatever was storing the file throws it away and stores nothing.
 */
export function lastFilePart(file: Readable, rest: AsyncIterator<Multipart>): Readable {
  const guarded = new PassThrough();
  // The route may refuse before reading the file (slow mode, a ban): the form's later error must not
  // then be an unhandled 'error' event. Whoever reads the stream still gets it through its own listener.
  guarded.on('error', () => undefined);
  file.on('error', (error) => guarded.destroy(error));
  file.on('end', () => {
    rest.next().then(
      (next) => {
        if (next.done === true) guarded.end();
        else guarded.destroy(oneFileOnly());
      },
      (error: unknown) => guarded.destroy(error instanceof Error ? error : new Error(String(error))),
    );
  });
  file.pipe(guarded, { end: false });
  return guarded;
}

/** The one part of an upload form: a file in the field `file`, and nothing after it. */
export async function theFilePart(
  request: FastifyRequest,
): Promise<{ readonly file: Readable; readonly filename: string }> {
  const parts = request.parts();
  const first = await parts.next();
  if (first.done === true || first.value.type !== 'file' || first.value.fieldname !== 'file') {
    throw oneFileOnly();
  }
  return { file: lastFilePart(first.value.file, parts), filename: first.value.filename };
}
