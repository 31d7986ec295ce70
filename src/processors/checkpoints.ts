import { type CommonQueryMethods, type DatabasePool, sql } from 'slonik';
import { z } from 'zod';
import { type Position, positionColumns, type RecordedEvent, toPosition } from '../events/envelope.ts';
import type { EventStore } from '../events/store/port.ts';
import type { Processor } from './processor.ts';

/** The processor's checkpoint: undefined when it has never run, null when it starts from the log's start. */
export async function readProcessorCheckpoint(
  db: CommonQueryMethods,
  name: string,
): Promise<Position | null | undefined> {
  const row = await db.maybeOne(sql.type(positionColumns)`
    SELECT commit_position, prepare_position FROM processor_checkpoints WHERE name = ${name}`);
  return row ? toPosition(row) : undefined;
}

/**
 * The position to follow from, creating the checkpoint on first run where `startFrom` says. Called by
 * the active runner only, but the insert tolerates a race with a devtools reset all the same.
 */
export async function loadProcessorCheckpoint(
  pool: DatabasePool,
  store: EventStore,
  processor: Processor,
): Promise<Position | null> {
  const found = await readProcessorCheckpoint(pool, processor.name);
  if (found !== undefined) return found;
  const start = processor.startFrom === 'beginning' ? null : await store.headPosition(processor.categories);
  await pool.query(sql.unsafe`
    INSERT INTO processor_checkpoints (name, commit_position, prepare_position)
    VALUES (${processor.name}, ${start?.commit.toString() ?? null}, ${start?.prepare.toString() ?? null})
    ON CONFLICT (name) DO NOTHING`);
  return (await readProcessorCheckpoint(pool, processor.name)) ?? start;
}

/**
 * Moves the checkpoint from `from` to `to` only if it is still at `from`. False means someone else moved
 * it (a runner that took over while this one lost its lock, or a devtools reset): reload, don't write.
 */
export async function advanceProcessorCheckpoint(
  db: CommonQueryMethods,
  name: string,
  from: Position | null,
  to: Position,
): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE processor_checkpoints
    SET commit_position = ${to.commit.toString()}, prepare_position = ${to.prepare.toString()},
        updated_at = now()
    WHERE name = ${name}
      AND commit_position IS NOT DISTINCT FROM ${from?.commit.toString() ?? null}::bigint
      AND prepare_position IS NOT DISTINCT FROM ${from?.prepare.toString() ?? null}::bigint`);
  return result.rowCount === 1;
}

export interface DeadLetter {
  readonly event: RecordedEvent;
  readonly attempts: number;
  /** The last error's name and message: never the event's data. */
  readonly lastError: string;
}

/**
 * Records the event as given up and moves past it in one transaction, so a crash cannot lose the dead
 * letter nor leave one for an event that is then retried. A second dead letter for the same event (after
 * an operator rewound the checkpoint) replaces the first.
 */
export async function deadLetterAndAdvance(
  pool: DatabasePool,
  name: string,
  from: Position | null,
  letter: DeadLetter,
): Promise<boolean> {
  const { event } = letter;
  return pool.transaction(async (tx) => {
    if (!(await advanceProcessorCheckpoint(tx, name, from, event.position))) return false;
    await tx.query(sql.unsafe`
      INSERT INTO processor_dead_letters (processor, event_id, event_type, stream_name, commit_position,
        prepare_position, attempts, last_error)
      VALUES (${name}, ${event.id}, ${event.type}, ${event.streamName}, ${event.position.commit.toString()},
        ${event.position.prepare.toString()}, ${letter.attempts}, ${letter.lastError})
      ON CONFLICT (processor, event_id) DO UPDATE
      SET attempts = EXCLUDED.attempts, last_error = EXCLUDED.last_error, dead_at = now()`);
    return true;
  });
}

/** Dead letters per processor, for the metrics (read from the table so every replica reports the same). */
export async function countDeadLetters(db: CommonQueryMethods): Promise<Map<string, number>> {
  const rows = await db.any(sql.type(z.object({ processor: z.string(), n: z.number() }))`
    SELECT processor, count(*)::int AS n FROM processor_dead_letters GROUP BY processor`);
  return new Map(rows.map((r) => [r.processor, r.n]));
}
