import { z } from 'zod';

/** Who caused an event. Auditors read this, so it is part of every event, not an afterthought. */
export const actorSchema = z.object({
  type: z.enum(['user', 'admin', 'moderator', 'system']),
  id: z.string().min(1),
});
export type Actor = z.infer<typeof actorSchema>;

export const metadataSchema = z.object({
  actor: actorSchema,
  correlationId: z.string().min(1),
  causationId: z.string().min(1).nullable(),
  occurredAt: z.iso.datetime(),
  schemaVersion: z.number().int().min(1),
});
export type EventMetadata = z.infer<typeof metadataSchema>;

/** JSON as stored: what an event's data may hold. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** What a command hands to the store. */
export interface EventToAppend {
  readonly id: string;
  readonly type: string;
  readonly data: Json;
  readonly metadata: EventMetadata;
}

/**
 * A place in the global log. Both stores order by a pair: KurrentDB by its commit and prepare positions,
 * the PostgreSQL store by the writing transaction's id and then the sequence (see decision 007). Compare
 * only with `comparePositions`.
 */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** A position as checkpoint tables store it: two nullable bigint columns. */
export const positionColumns = z.object({
  commit_position: z.coerce.bigint().nullable(),
  prepare_position: z.coerce.bigint().nullable(),
});

export const toPosition = (row: z.infer<typeof positionColumns>): Position | null =>
  row.commit_position === null || row.prepare_position === null
    ? null
    : { commit: row.commit_position, prepare: row.prepare_position };

/** True when `position` is at or past `target`; no position (nothing read yet) is before everything. */
export const reached = (position: Position | null, target: Position): boolean =>
  position !== null && comparePositions(position, target) >= 0;

/** An event as read back: upcast to the current schema version of its type. */
export interface RecordedEvent<Type extends string = string, Data = Json> {
  readonly id: string;
  readonly type: Type;
  readonly data: Data;
  readonly metadata: EventMetadata;
  readonly streamName: string;
  readonly streamRevision: bigint;
  readonly position: Position;
  /** When the store recorded it (the store's clock, not the command's). */
  readonly recordedAt: Date;
}

/** Stream names are `<category>-<id>`; the category is camelCase and has no dash (ARCHITECTURE.md). */
const categoryPattern = /^[a-z][a-zA-Z0-9]*$/;

export function streamName(category: string, id: string): string {
  if (!categoryPattern.test(category)) throw new Error(`invalid stream category '${category}'`);
  if (id.length === 0) throw new Error('a stream id must not be empty');
  return `${category}-${id}`;
}

export function categoryOf(stream: string): string {
  const dash = stream.indexOf('-');
  return dash === -1 ? stream : stream.slice(0, dash);
}
