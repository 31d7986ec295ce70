import type { z } from 'zod';
import { categoryOf, type Json } from './envelope.ts';

/**
 * What in an event is a user's personal data, and whose (decision 048). The event store seals each listed
 * field with its user's data key before it is stored, and opens it when read; once the user is erased the
 * key is gone, and the field reads as null. The host's user ids stay in the clear: they are pseudonyms the
 * host assigns, and streams and read tables key on them.
 */
export interface PersonalFields {
  /** The user the fields belong to, from the event's data or its stream's name. */
  readonly subject: (data: Json, stream: string) => string;
  /** Paths into the data: `a.b` for a nested field, `list[].field` for a field of every element. */
  readonly paths: readonly string[];
}

const field =
  (name: string) =>
  (data: Json): string => {
    const value = typeof data === 'object' && data !== null && !Array.isArray(data) ? data[name] : undefined;
    if (typeof value !== 'string') throw new Error(`the event names no ${name}`);
    return value;
  };

/** The id after the category: `userDevices-<userId>` names its user. */
const streamId = (_data: Json, stream: string): string => stream.slice(categoryOf(stream).length + 1);

/** By event type. An event type not listed carries nothing personal beyond host user ids. */
export const personalData: Readonly<Record<string, PersonalFields>> = {
  commentPosted: { subject: field('authorId'), paths: ['text'] },
  commentReported: { subject: field('reporterId'), paths: ['note'] },
  commentRejected: { subject: field('userId'), paths: ['snippet'] },
  userBanned: { subject: field('userId'), paths: ['reason'] },
  complaintSubmitted: { subject: field('userId'), paths: ['text', 'attachments[].name'] },
  csatRated: { subject: field('userId'), paths: ['comment'] },
  deviceRegistered: { subject: streamId, paths: ['token', 'telemetry'] },
  deviceUnregistered: { subject: streamId, paths: ['token'] },
  deviceRejectedByProvider: { subject: streamId, paths: ['token'] },
};

/** A personal field in an event's schema: null once its user was erased (the data key is gone). */
export const erasable = <Schema extends z.ZodType>(schema: Schema) => schema.nullable();

/** Calls `visit` on each value a path reaches and puts back what it returns; the data is not modified. */
export function mapPath(data: Json, path: string, visit: (value: Json) => Json): Json {
  const [head = '', ...rest] = path.split('.');
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  const many = head.endsWith('[]');
  const key = many ? head.slice(0, -2) : head;
  if (!(key in data)) return data;
  const value = data[key] as Json;
  const inner = (v: Json): Json => (rest.length === 0 ? visit(v) : mapPath(v, rest.join('.'), visit));
  const next = many ? (Array.isArray(value) ? value.map(inner) : value) : inner(value);
  return next === value ? data : { ...data, [key]: next };
}

/** Every value the paths of `fields` reach in `data`. */
export function valuesAt(data: Json, fields: PersonalFields): Json[] {
  const found: Json[] = [];
  for (const path of fields.paths) mapPath(data, path, (v) => (found.push(v), v));
  return found;
}
