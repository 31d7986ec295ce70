/**
 * One attempt of a KurrentDB append that a retry cannot double (decision 010, "Idempotent appends"):
 * with `no_stream` or a revision it first looks for the batch's ids where the expected revision says they
 * would stand, and answers the original result with `written: false` when all of them are there. `any`
 * appends keep one round trip and the server's own event-id check.
 */
import { FORWARDS, WrongExpectedVersionError, type KurrentDBClient } from '@kurrent/kurrentdb-client';
import type { EventToAppend, Position } from '../envelope.ts';
import { type AppendResult, type ExpectedRevision, WrongExpectedRevisionError } from './port.ts';
import { toEventData, toStreamState } from './kurrentdb-records.ts';
import { readStreamRecords } from './kurrentdb-reads.ts';

export interface RevisionWindow {
  readonly fromRevision: bigint;
  readonly maxCount: number;
}

/**
 * The revisions where a batch of `count` events appended at `expected` can already stand: right after
 * it (a plain retry), or ending at it (a retry that re-read the stream, found its own first attempt and
 * so expects the revision that attempt produced).
 */
export function idempotencyWindow(expected: 'no_stream' | bigint, count: number): RevisionWindow {
  const last = expected === 'no_stream' ? -1n : expected;
  const size = BigInt(count);
  const from = last - size + 1n > 0n ? last - size + 1n : 0n;
  return { fromRevision: from, maxCount: Number(last + size - from + 1n) };
}

export interface StoredRef {
  readonly id: string;
  readonly revision: bigint;
  readonly position: Position;
}

/**
 * Where a batch of event ids stands among stored events: its last event when all of them are there in
 * order, 'none' when none is, 'some' otherwise (a different batch reusing ids: never a retry).
 */
export function storedBatch(
  stored: readonly StoredRef[],
  ids: readonly string[],
): StoredRef | 'none' | 'some' {
  // Ids compare as UUIDs, whatever case each side spells them in.
  const wanted = ids.map((id) => id.toLowerCase());
  const start = stored.findIndex((s) => s.id.toLowerCase() === wanted[0]);
  if (start === -1) return stored.some((s) => wanted.includes(s.id.toLowerCase())) ? 'some' : 'none';
  const run = stored.slice(start, start + wanted.length);
  const whole = run.length === wanted.length && run.every((s, i) => s.id.toLowerCase() === wanted[i]);
  return whole ? (run.at(-1) ?? 'none') : 'some';
}

/** The original result when the batch is stored already. */
async function previousAppend(
  client: KurrentDBClient,
  stream: string,
  events: readonly EventToAppend[],
  expected: 'no_stream' | bigint,
): Promise<AppendResult | null> {
  const window = idempotencyWindow(expected, events.length);
  const records = await readStreamRecords(client, stream, { direction: FORWARDS, ...window });
  const refs = records.flatMap((r) =>
    r.position ? [{ id: r.id, revision: r.revision, position: r.position }] : [],
  );
  const found = storedBatch(
    refs,
    events.map((e) => e.id),
  );
  if (found === 'none') return null;
  if (found === 'some') throw new Error(`some of these event ids are stored already in ${stream}`);
  return { nextRevision: found.revision, position: found.position, written: false };
}

/** Only for servers that answer an append without a position. */
async function positionAt(client: KurrentDBClient, stream: string, revision: bigint): Promise<Position> {
  const [record] = await readStreamRecords(client, stream, {
    direction: FORWARDS,
    fromRevision: revision,
    maxCount: 1,
  });
  if (!record?.position) throw new Error(`no position for revision ${revision.toString()} of ${stream}`);
  return record.position;
}

/** One attempt of an append; a retry finds its first attempt's events and answers `written: false`. */
export async function appendOnce(
  client: KurrentDBClient,
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedRevision,
): Promise<AppendResult> {
  if (expected !== 'any') {
    const previous = await previousAppend(client, stream, events, expected);
    if (previous) return previous;
  }
  try {
    const result = await client.appendToStream(stream, events.map(toEventData), {
      streamState: toStreamState(expected),
    });
    const position = result.position ?? (await positionAt(client, stream, result.nextExpectedRevision));
    return { nextRevision: result.nextExpectedRevision, position, written: true };
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
    // A concurrent retry of the same ids may have landed between the read and the append.
    const previous = expected === 'any' ? null : await previousAppend(client, stream, events, expected);
    if (previous) return previous;
    throw new WrongExpectedRevisionError(stream, expected, error.actualState);
  }
}
