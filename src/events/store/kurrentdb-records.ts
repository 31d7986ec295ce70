/**
 * How the KurrentDB adapter maps between the port's events and the client's records: stored records to
 * `RecordedEvent`s, events to append to the client's event data, expected revisions to stream states, and
 * categories to server-side filters.
 */
import {
  ANY,
  NO_STREAM,
  excludeSystemEvents,
  streamNameFilter,
  type Filter,
  type JSONEventData,
  type JSONType,
  type StreamState,
} from '@kurrent/kurrentdb-client';
import {
  comparePositions,
  type EventMetadata,
  type EventToAppend,
  type Json,
  type Position,
  type RecordedEvent,
} from '../envelope.ts';
import type { ExpectedRevision } from './port.ts';
import type { Upcast } from '../upcasting.ts';

/** What the adapter uses of a stored event, from a stream read, a $all read or a subscription alike. */
export interface StoredRecord {
  readonly streamId: string;
  readonly id: string;
  readonly type: string;
  readonly revision: bigint;
  readonly isJson: boolean;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly created: Date;
  readonly position?: Position | undefined;
}

export function toStreamState(expected: ExpectedRevision): StreamState {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  return expected;
}

/** The server-side filter: the categories' streams, or every event but the server's own. */
export function logFilter(categories?: readonly string[]): Filter {
  if (!categories || categories.length === 0) return excludeSystemEvents();
  // With the dash, category `channel` does not take in the streams of `channelPost`.
  return streamNameFilter({ prefixes: categories.map((category) => `${category}-`) });
}

/** True when `position` comes strictly after `after`; no position stands before the whole log. */
export const isAfter = (position: Position, after: Position | null): boolean =>
  after === null || comparePositions(position, after) > 0;

/** For logs: a position without any event content. */
export const describePosition = (position: Position | null): string =>
  position ? `${position.commit.toString()}/${position.prepare.toString()}` : 'start';

const isSystem = (name: string): boolean => name.startsWith('$');

const isEventMetadata = (value: unknown): value is EventMetadata =>
  typeof value === 'object' &&
  value !== null &&
  'schemaVersion' in value &&
  typeof value.schemaVersion === 'number';

/** Null for the server's own events; throws on an event this service cannot have written. */
export function toRecordedEvent(record: StoredRecord, upcast: Upcast): RecordedEvent | null {
  // A deletion tombstone, for one, sits in the deleted stream itself and so passes a category filter.
  if (isSystem(record.streamId) || isSystem(record.type)) return null;
  const where = `event ${record.id} in ${record.streamId}`;
  if (!record.isJson) throw new Error(`${where} is not JSON`);
  if (!record.position) throw new Error(`${where} came without its position (server older than 22.6?)`);
  if (!isEventMetadata(record.metadata)) throw new Error(`${where} has no metadata envelope`);
  return upcast({
    id: record.id,
    type: record.type,
    // The client parsed it from the stored JSON.
    data: record.data as Json,
    metadata: record.metadata,
    streamName: record.streamId,
    streamRevision: record.revision,
    position: record.position,
    recordedAt: record.created,
  });
}

export function toEventData(event: EventToAppend): JSONEventData {
  return {
    id: event.id,
    contentType: 'application/json',
    type: event.type,
    // The client JSON.stringify()s any data; its type only admits objects, arrays and strings.
    data: event.data as JSONType,
    metadata: event.metadata,
  };
}
