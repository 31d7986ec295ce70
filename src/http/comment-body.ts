import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { blockText } from '../lib/text-rules.ts';
import { lastFilePart } from './multipart-form.ts';
import { HttpProblem } from './problem.ts';

/** Reads a new comment: `text`, and an optional `image` whose bytes the callback consumes as they come. */
export type CommentBodyReader = <T>(
  request: FastifyRequest,
  post: (text: string, image?: Readable) => Promise<T>,
) => Promise<T>;

const invalid = (message: string) =>
  new HttpProblem(400, 'validation_failed', `The comment is invalid: ${message}.`);

/**
 * `text` and an optional `image`, from JSON or from a multipart form whose `text` comes first. The image
 * is handed on while the form streams: its bytes are read by whoever stores it, never buffered here.
 */
export function commentBodyReader(maxLength: number): CommentBodyReader {
  const textSchema = blockText({ max: maxLength });
  // Built once: zod compiles a schema on first use, which per request would cost more than the check.
  const jsonSchema = z.strictObject({ text: textSchema });
  const issues = (error: z.ZodError) => error.issues.map((i) => i.message).join('; ');

  return async (request, post) => {
    if (!request.isMultipart()) {
      const parsed = jsonSchema.safeParse(request.body);
      if (!parsed.success) throw invalid(issues(parsed.error));
      return post(parsed.data.text);
    }
    let text: string | undefined;
    const parts = request.parts();
    for (let next = await parts.next(); next.done !== true; next = await parts.next()) {
      const part = next.value;
      if (part.type === 'field' && part.fieldname === 'text' && text === undefined) {
        const parsed = textSchema.safeParse(part.value);
        if (!parsed.success) throw invalid(issues(parsed.error));
        text = parsed.data;
        continue;
      }
      if (part.type === 'file' && part.fieldname === 'image' && text !== undefined) {
        // Anything after the image refuses the whole comment, image included.
        return post(text, lastFilePart(part.file, parts));
      }
      throw invalid('Send the field `text` first, then at most one file field `image`.');
    }
    if (text === undefined) throw invalid('The field `text` is required.');
    return post(text);
  };
}
