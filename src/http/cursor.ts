import { z } from 'zod';

/** Opaque list cursors (API.md: "cursors are opaque strings"): a keyset position, base64url-encoded. */
export const encodeCursor = (position: string): string => Buffer.from(position, 'utf8').toString('base64url');

/** A query parameter holding a cursor; decodes to the position, or fails validation. */
export const cursorParam = (position: z.ZodType<string>) =>
  z
    .string()
    .max(512)
    .regex(/^[\w-]+$/, 'is not a cursor from this list')
    .transform((cursor, ctx) => {
      const parsed = position.safeParse(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (parsed.success) return parsed.data;
      ctx.addIssue({ code: 'custom', message: 'is not a cursor from this list' });
      return z.NEVER;
    });

/** `limit` as API.md fixes it: 1-100, 20 by default. */
export const limitParam = z.coerce.number().int().min(1).max(100).default(20);
