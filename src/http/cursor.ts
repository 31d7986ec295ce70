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

/**
 * An instant exactly as `toISOString` writes it, in years 0001-9999: a forged one (month 13, year 0000, a
 * six-digit year PostgreSQL refuses) never reaches the database.
 */
const isInstant = (text: string): boolean => {
  const at = Date.parse(text);
  return /^(?!0000)\d{4}-/.test(text) && !Number.isNaN(at) && new Date(at).toISOString() === text;
};
const uuid = z.uuid();

/**
 * The keyset of a list ordered by (instant, id), as its text: `<instant>|<uuid>` of the page's last row,
 * opaque to clients; fails validation (400) when it is not one this service made.
 */
export const instantIdPosition = () =>
  cursorParam(
    z.string().refine((position) => {
      const [at = '', id = '', ...rest] = position.split('|');
      return rest.length === 0 && isInstant(at) && uuid.safeParse(id).success;
    }, 'is not a cursor from this list'),
  );

/** The same keyset decoded to `{ at, id }`. */
export const instantIdCursor = () =>
  instantIdPosition().transform((position) => {
    const [at = '', id = ''] = position.split('|');
    return { at, id };
  });

export const encodeInstantIdCursor = (at: Date | string, id: string): string =>
  encodeCursor(`${typeof at === 'string' ? at : at.toISOString()}|${id}`);
