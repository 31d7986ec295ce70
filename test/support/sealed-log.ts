import { randomUUID } from 'node:crypto';
import { type CommonQueryMethods, sql } from 'slonik';
import { afterAll, beforeAll } from 'vitest';
import { z } from 'zod';
import type { Json, Position, RecordedEvent } from '../../src/events/envelope.ts';
import { privacyStream } from '../../src/events/privacy.ts';
import { createDataKeys, type DataKeys } from '../../src/events/store/data-keys.ts';
import type { EventStore } from '../../src/events/store/port.ts';
import { createPostgresEventStore } from '../../src/events/store/postgres.ts';
import { withSealing } from '../../src/events/store/sealing.ts';
import { createLogger } from '../../src/http/logger.ts';
import { masterKey } from '../../src/lib/sealed-box.ts';
import {
  createGeneration,
  generationSchema,
  type Projection,
  tablesOf,
} from '../../src/projections/projection.ts';
import { useTestDatabase } from './database.ts';

/**
 * A PostgreSQL event store sealed with data keys, as the service runs it (decision 048), for projection
 * tests of erasure: append events, erase a user (their key, then `userErased`), and feed a projection's
 * generations from the log as the runner would (`follow`) or as a rebuild does (`rebuild`).
 */
export interface SealedLog {
  readonly pool: CommonQueryMethods;
  readonly store: EventStore;
  /** Appends one event to `stream` (sealed on the way in). */
  append(stream: string, type: string, data: Json): Promise<void>;
  /** Deletes the user's data key, then appends their `userErased`: what an erasure does to the log. */
  erase(userId: string): Promise<void>;
  /** Applies to `generation` what the log holds past where it was last followed, as one batch. */
  follow(projection: Projection, generation: number): Promise<void>;
  /** Fills a new `generation` from the whole log, `batchSize` events a batch. */
  rebuild(projection: Projection, generation: number, batchSize: number): Promise<void>;
  /** Every row of a generation's table as an object, in a stable order. */
  rows(projection: Projection, generation: number, table: string): Promise<Record<string, unknown>[]>;
}

const logger = createLogger('silent');

/** A sealed log over the suite's own database, for the whole suite. */
export function useSealedLog(): SealedLog {
  const db = useTestDatabase();
  let opened: { store: EventStore; keys: DataKeys } | undefined;
  const followed = new Map<string, Position | null>();
  const current = () => {
    if (!opened) throw new Error('the sealed log is only there inside hooks and tests');
    return opened;
  };
  const store = () => current().store;

  beforeAll(() => {
    // One set of keys for sealing and erasing, as in the service: erasing drops the key from its cache.
    const keys = createDataKeys({ connectionString: db.url, master: masterKey('sealed-log-test-secret') });
    opened = {
      keys,
      store: withSealing(createPostgresEventStore({ connectionString: db.url, logger }), keys),
    };
  });
  afterAll(async () => {
    // Closing the sealed store closes its keys too.
    await opened?.store.close();
  });

  const append = async (stream: string, type: string, data: Json) => {
    const metadata = {
      actor: { type: 'system' as const, id: 'test' },
      correlationId: randomUUID(),
      causationId: null,
      occurredAt: new Date().toISOString(),
      schemaVersion: 1,
    };
    await store().append(stream, [{ id: randomUUID(), type, data, metadata }], 'any');
  };

  /** Applies the projection's events after `after` to `generation`, `size` a batch; answers where it ended. */
  const replay = async (
    projection: Projection,
    generation: number,
    after: Position | null,
    size: number,
  ): Promise<Position | null> => {
    const tables = tablesOf(projection, generation);
    let position = after;
    for (;;) {
      const events: RecordedEvent[] = await store().readAll({
        after: position,
        categories: projection.categories,
        maxCount: size,
      });
      if (events.length === 0) return position;
      await db.pool.transaction((tx) => projection.apply(tx, events, tables));
      position = events.at(-1)?.position ?? position;
    }
  };

  return {
    get pool() {
      return db.pool;
    },
    get store() {
      return store();
    },
    append,
    async erase(userId) {
      await current().keys.erase(userId);
      await append(privacyStream(userId), 'userErased', {
        userId,
        erasureId: randomUUID(),
        at: new Date().toISOString(),
      });
    },
    async follow(projection, generation) {
      const key = `${projection.name}/${generation}`;
      if (!followed.has(key)) await createGeneration(db.pool, projection, generation);
      followed.set(key, await replay(projection, generation, followed.get(key) ?? null, 10_000));
    },
    async rebuild(projection, generation, batchSize) {
      await createGeneration(db.pool, projection, generation);
      await replay(projection, generation, null, batchSize);
    },
    async rows(projection, generation, table) {
      const identifier = sql.identifier([generationSchema(projection, generation), table]);
      const found = await db.pool.anyFirst(sql.type(z.object({ row: z.string() }))`
        SELECT row_to_json(t)::text AS row FROM ${identifier} t ORDER BY row_to_json(t)::text`);
      return found.map((row) => z.record(z.string(), z.unknown()).parse(JSON.parse(row)));
    },
  };
}
