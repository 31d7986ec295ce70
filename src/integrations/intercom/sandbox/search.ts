import { z } from 'zod';
import { invalid } from './errors.ts';

// Intercom's search DSL (`search_request` in the OpenAPI file), as far as the sandbox answers it: one
// filter or AND/OR of filters, over the fields each endpoint declares; anything else is refused loudly so a
// caller learns the sandbox does not know it instead of getting a silently wrong answer.

const scalar = z.union([z.string(), z.number(), z.boolean()]);

interface SingleFilter {
  readonly field: string;
  readonly operator: string;
  readonly value: z.infer<typeof scalar> | readonly (string | number)[] | null;
}
interface MultipleFilter {
  readonly operator: 'AND' | 'OR';
  readonly value: readonly Filter[];
}
type Filter = SingleFilter | MultipleFilter;

const singleFilter = z.object({
  field: z.string(),
  operator: z.string(),
  value: z.union([scalar, z.array(z.union([z.string(), z.number()])), z.null()]),
});
const filter: z.ZodType<Filter> = z.lazy(() =>
  z.union([z.object({ operator: z.enum(['AND', 'OR']), value: z.array(filter) }), singleFilter]),
);

export const searchRequest = z.object({
  query: filter,
  pagination: z
    .object({
      per_page: z.number().int().min(1).max(150).optional(),
      starting_after: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
});
export type SearchRequest = z.infer<typeof searchRequest>;

/** A field's values on one record: a list field (contact_ids) matches `=` when any element does. */
export type Fields<T> = Record<string, (record: T) => readonly (string | number | boolean | null)[]>;

export function matches<T>(record: T, query: Filter, fields: Fields<T>): boolean {
  if (query.operator === 'AND' || query.operator === 'OR') {
    const parts = query.value as readonly Filter[];
    const results = parts.map((part) => matches(record, part, fields));
    return query.operator === 'AND' ? results.every(Boolean) : results.some(Boolean);
  }
  const single = query as SingleFilter;
  const read = fields[single.field];
  if (!read) throw invalid(`The sandbox cannot search by field ${single.field}`);
  if (single.operator === '>' || single.operator === '<') {
    // Dates and numbers: Intercom compares unix seconds.
    const bound = Number(single.value);
    if (!Number.isFinite(bound)) throw invalid(`The sandbox compares ${single.field} with numbers only`);
    return read(record).some(
      (v) => typeof v === 'number' && (single.operator === '>' ? v > bound : v < bound),
    );
  }
  const values = read(record).map(String);
  const wanted = (Array.isArray(single.value) ? single.value : [single.value]).map(String);
  const any = wanted.some((value) => values.includes(value));
  switch (single.operator) {
    case '=':
    case 'IN':
      return any;
    case '!=':
    case 'NIN':
      return !any;
    default:
      throw invalid(`The sandbox cannot search with operator ${single.operator}`);
  }
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly totalCount: number;
  readonly pages: Record<string, unknown>;
}

const DEFAULT_PER_PAGE = 50;

/**
 * Cursor pagination as Intercom's search does it: `pagination.starting_after` from the previous page's
 * `pages.next`. The cursor is opaque to callers; here it names the last record shown and the page number.
 */
export function paginate<T extends { readonly id: string }>(
  records: readonly T[],
  request: SearchRequest,
): Page<T> {
  const perPage = request.pagination?.per_page ?? DEFAULT_PER_PAGE;
  const cursor = request.pagination?.starting_after;
  let start = 0;
  let page = 1;
  if (cursor) {
    const decoded = decodeCursor(cursor);
    const index = records.findIndex((record) => record.id === decoded.after);
    start = index + 1;
    page = decoded.page + 1;
  }
  const items = records.slice(start, start + perPage);
  const last = items.at(-1);
  const more = start + perPage < records.length && last !== undefined;
  const pages: Record<string, unknown> = {
    type: 'pages',
    page,
    per_page: perPage,
    total_pages: Math.ceil(records.length / perPage),
    ...(more ? { next: { per_page: perPage, starting_after: encodeCursor(last.id, page) } } : {}),
  };
  return { items, totalCount: records.length, pages };
}

function encodeCursor(after: string, page: number): string {
  return Buffer.from(JSON.stringify({ after, page })).toString('base64url');
}

const cursorShape = z.object({ after: z.string(), page: z.number().int().min(1) });

function decodeCursor(cursor: string): z.infer<typeof cursorShape> {
  try {
    return cursorShape.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw invalid('starting_after is invalid');
  }
}
