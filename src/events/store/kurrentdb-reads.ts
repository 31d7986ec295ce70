/**
 * The KurrentDB adapter's reads: one stream, and pages of the global log (`$all`). The log read skips the
 * server's own events and the event at its start position, which KurrentDB reads inclusively.
 */
import {
  FORWARDS,
  START,
  StreamNotFoundError,
  type AllStreamRecordedEvent,
  type Direction,
  type Filter,
  type KurrentDBClient,
  type ReadPosition,
  type ReadRevision,
} from '@kurrent/kurrentdb-client';
import type { RecordedEvent } from '../envelope.ts';
import type { ReadAllOptions } from './port.ts';
import { isAfter, logFilter, type StoredRecord } from './kurrentdb-records.ts';

export interface StreamRead {
  readonly direction: Direction;
  readonly fromRevision: ReadRevision;
  readonly maxCount?: number | undefined;
}

/** The stored records of one stream; an absent stream reads as empty. */
export async function readStreamRecords(
  client: KurrentDBClient,
  stream: string,
  read: StreamRead,
): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  try {
    for await (const resolved of client.readStream(stream, read)) {
      if (resolved.event) records.push(resolved.event);
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
  return records;
}

export interface LogRead {
  readonly fromPosition: ReadPosition;
  readonly direction: Direction;
  readonly filter?: Filter;
  readonly maxCount: number;
}

export async function readAllPage(client: KurrentDBClient, read: LogRead): Promise<AllStreamRecordedEvent[]> {
  const records: AllStreamRecordedEvent[] = [];
  for await (const resolved of client.readAll(read)) {
    if (resolved.event) records.push(resolved.event);
  }
  return records;
}

/** `EventStore.readAll`: up to `maxCount` events of the categories after `after`. */
export async function readAllEvents(
  client: KurrentDBClient,
  { after, categories, maxCount }: ReadAllOptions,
  toRecorded: (record: StoredRecord) => RecordedEvent | null,
): Promise<RecordedEvent[]> {
  const filter = logFilter(categories);
  const events: RecordedEvent[] = [];
  let cursor = after;
  // More than one page only when the server's own events (skipped here) took places in one.
  while (events.length < maxCount) {
    // The event at the cursor itself comes back first: one more than still wanted.
    const wanted = maxCount - events.length + (cursor ? 1 : 0);
    const page = await readAllPage(client, {
      fromPosition: cursor ?? START,
      direction: FORWARDS,
      filter,
      maxCount: wanted,
    });
    for (const record of page) {
      if (events.length === maxCount) break;
      const { position } = record;
      if (!isAfter(position, cursor)) continue;
      cursor = position;
      const event = toRecorded(record);
      if (event) events.push(event);
    }
    if (page.length < wanted) break;
  }
  return events;
}
