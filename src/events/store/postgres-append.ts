import DataLoader from 'dataloader';
import pg from 'pg';
import { batchGate } from '../../lib/batched.ts';
import type { EventToAppend } from '../envelope.ts';
import type { AppendResult, ExpectedRevision } from './port.ts';
import { WrongExpectedRevisionError } from './port.ts';

/** Appends to one stream each; a group of them is one statement and one transaction. */
export type Append = (
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedRevision,
  /** How long it may wait for company (0: only what comes in the same turn of the event loop). */
  lingerMs: number,
) => Promise<AppendResult>;

interface PendingAppend {
  readonly stream: string;
  readonly events: readonly EventToAppend[];
  readonly expected: ExpectedRevision;
}

interface AppendRow {
  outcome: 'written' | 'duplicate' | 'conflict';
  revision: string;
  transaction_id: string | null;
  global_position: string | null;
}

/** Large enough for every request a busy process has in flight; small enough to hold few row locks long. */
const MAX_GROUP = 64;
/**
 * Groups in flight at once, at most: one per connection of the pool. Past that, the next appends wait for
 * a group to finish and then go together (a group commit, decision 022) instead of queueing for a
 * connection one by one; a lone writer never waits. Two in flight cost the 8-writer benchmark a third of
 * its appends per second.
 */
const groupsInFlight = (pool: pg.Pool) => Math.max(1, pool.options.max);

const expectedArg = (expected: ExpectedRevision): string =>
  expected === 'no_stream' ? '-1' : expected === 'any' ? '-2' : expected.toString();

const isUniqueEventIdViolation = (error: unknown): boolean =>
  error instanceof pg.DatabaseError && error.code === '23505' && error.constraint === 'events_event_id_key';

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * Appends through `append_to_stream` (migration 1763800000000_event-store.sql). The appends made while the
 * event loop handles one round of I/O, or while a group holds every connection of the pool, go
 * together through `append_to_streams`, in one round trip and one
 * commit (DataLoader, nothing cached): under load, writers are bound by round trips to PostgreSQL and by
 * commits, not by the work of each append (the appends that start a stream are written set-wise inside
 * it). Each append keeps its own expected revision and outcome; should the group's statement fail as a
 * whole, each append is tried again alone, so that one bad append cannot fail the others.
 * `written(stream)` is told of each append that wrote, after its commit.
 */
export function createAppend(pool: pg.Pool, written: (stream: string) => void): Append {
  const result = (stream: string, expected: ExpectedRevision, row: AppendRow | undefined): AppendResult => {
    if (!row) throw new Error('append_to_stream answered nothing');
    const revision = BigInt(row.revision);
    if (row.outcome === 'conflict') {
      throw new WrongExpectedRevisionError(stream, expected, revision < 0n ? 'no_stream' : revision);
    }
    if (row.outcome === 'written') written(stream);
    return {
      nextRevision: revision,
      position: { commit: BigInt(row.transaction_id ?? '0'), prepare: BigInt(row.global_position ?? '0') },
      written: row.outcome === 'written',
    };
  };

  async function appendOnce({ stream, events, expected }: PendingAppend): Promise<AppendResult> {
    const { rows } = await pool.query<AppendRow>({
      name: 'append_to_stream',
      text: `SELECT outcome, revision, transaction_id::text AS transaction_id, global_position
             FROM append_to_stream($1, $2, $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[])`,
      values: [
        stream,
        expectedArg(expected),
        events.map((e) => e.id),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.data)),
        events.map((e) => JSON.stringify(e.metadata)),
      ],
    });
    return result(stream, expected, rows[0]);
  }

  async function appendAlone(pending: PendingAppend): Promise<AppendResult> {
    try {
      return await appendOnce(pending);
    } catch (error) {
      // The same ids raced in from a concurrent retry: once it has committed, this is a duplicate.
      if (isUniqueEventIdViolation(error)) return appendOnce(pending);
      throw error;
    }
  }

  async function appendGroup(group: readonly PendingAppend[]): Promise<(AppendResult | Error)[]> {
    const eachAlone = () => Promise.all(group.map((pending) => appendAlone(pending).catch(asError)));
    if (group.length === 1) return eachAlone();
    const order = group
      .map((pending, index) => ({ pending, index }))
      .sort((a, b) =>
        a.pending.stream < b.pending.stream ? -1 : a.pending.stream > b.pending.stream ? 1 : 0,
      );
    let rows: (AppendRow & { slot: number })[];
    try {
      ({ rows } = await pool.query<AppendRow & { slot: number }>({
        name: 'append_to_streams',
        text: `SELECT slot, outcome, revision, transaction_id::text AS transaction_id, global_position
               FROM append_to_streams($1::text[], $2::bigint[], $3::jsonb[])`,
        values: [
          order.map(({ pending }) => pending.stream),
          order.map(({ pending }) => expectedArg(pending.expected)),
          order.map(({ pending }) =>
            JSON.stringify(
              pending.events.map(({ id, type, data, metadata }) => ({ id, type, data, metadata })),
            ),
          ),
        ],
      }));
    } catch {
      // Nothing of the group was committed (or, were the answer lost after the commit, each append is
      // found stored and answers as a duplicate): each append alone meets its own fate.
      return eachAlone();
    }
    const bySlot = new Map(rows.map((row) => [row.slot, row]));
    const answers = new Array<AppendResult | Error>(group.length);
    for (const [at, { pending, index }] of order.entries()) {
      try {
        answers[index] = result(pending.stream, pending.expected, bySlot.get(at + 1));
      } catch (error) {
        answers[index] = asError(error);
      }
    }
    return answers;
  }

  const gate = batchGate(() => groupsInFlight(pool));
  const sendGroup = (group: readonly PendingAppend[]) => gate.run(() => appendGroup(group));
  const loader = new DataLoader<PendingAppend, AppendResult>(sendGroup, {
    cache: false,
    maxBatchSize: MAX_GROUP,
    batchScheduleFn: gate.schedule,
  });
  // Appends that may linger gather for that long (per length asked), then go as one group.
  const lingering = new Map<number, DataLoader<PendingAppend, AppendResult>>();
  const lingerFor = (ms: number) => {
    let found = lingering.get(ms);
    if (!found) {
      found = new DataLoader<PendingAppend, AppendResult>(sendGroup, {
        cache: false,
        maxBatchSize: MAX_GROUP,
        batchScheduleFn: (dispatch) => setTimeout(dispatch, ms),
      });
      lingering.set(ms, found);
    }
    return found;
  };
  return (stream, events, expected, lingerMs) =>
    (lingerMs > 0 ? lingerFor(lingerMs) : loader).load({ stream, events, expected });
}
