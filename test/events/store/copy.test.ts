import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RecordedEvent } from '../../../src/events/envelope.ts';
import { copyEventLog, verifyCopy } from '../../../src/events/store/copy.ts';
import { createDataKeys, type DataKeys } from '../../../src/events/store/data-keys.ts';
import { createKurrentDbEventStore } from '../../../src/events/store/kurrentdb.ts';
import type { EventStore } from '../../../src/events/store/port.ts';
import { createPostgresEventStore } from '../../../src/events/store/postgres.ts';
import { withSealing } from '../../../src/events/store/sealing.ts';
import { upcast } from '../../../src/events/upcasters.ts';
import { createLogger } from '../../../src/http/logger.ts';
import { masterKey } from '../../../src/lib/sealed-box.ts';
import { TEST_SECRETS } from '../../support/app.ts';
import { closeAfterEach } from '../../support/closing.ts';
import type { TestDatabase } from '../../support/database.ts';
import { appendEventsFromBefore, event, PLAIN, SEALABLE } from '../../support/events-from-before.ts';
import { startKurrentDbDouble } from '../../support/kurrentdb-double/index.ts';
import { spawnService } from '../../support/process.ts';

const logger = createLogger('silent');
const everyPlainValue = [...PLAIN.ann, ...PLAIN.bob];

const { closing, database } = closeAfterEach();

function keyring(db: TestDatabase): DataKeys {
  const keys = createDataKeys({ connectionString: db.url, master: masterKey(TEST_SECRETS.DATA_KEY_SECRET) });
  closing(keys);
  return keys;
}

/**
 * A KurrentDB of the test's own: the copy needs an empty target (or its own earlier copy), which a server
 * shared by the suite cannot give each test. The protocol double (test/support/kurrentdb-double).
 */
async function kurrentDb(): Promise<{ url: string; store: EventStore }> {
  const double = await startKurrentDbDouble();
  closing({ close: () => double.stop() });
  const store = createKurrentDbEventStore({ connectionString: double.connectionString, logger });
  closing(store);
  return { url: double.connectionString, store };
}

function postgresStore(db: TestDatabase): EventStore {
  const store = createPostgresEventStore({ connectionString: db.url, logger });
  closing(store);
  return store;
}

const readAll = (store: EventStore) => store.readAll({ after: null, maxCount: 10_000 });
/** The data of the events, as text to look for values in. */
const dataText = (events: readonly RecordedEvent[]) => JSON.stringify(events.map((e) => e.data));
/** What the copy keeps of each event: all but its position and recorded time. */
const identity = (events: readonly RecordedEvent[]) =>
  events.map((e) => ({ id: e.id, stream: e.streamName, revision: e.streamRevision, type: e.type }));
const opened = (events: readonly RecordedEvent[]) =>
  events.map(({ id, streamName, streamRevision, type, data, metadata }) => ({
    id,
    streamName,
    streamRevision,
    type,
    data,
    metadata,
  }));

/** The log from before sealing, plus appends that one transaction wrote to several streams together. */
async function sourceLog(db: TestDatabase): Promise<void> {
  await appendEventsFromBefore(db.url);
  const store = postgresStore(db);
  const channel = `channel-${randomUUID()}`;
  await store.append(channel, [event('channelCreated', { title: 'second' })], 'no_stream');
  // Appends started in one turn go as one group: one transaction, several streams.
  await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      store.append(
        `channelPost-${randomUUID()}`,
        [event('postPublished', { n: i }), event('postEdited', { n: i })],
        'no_stream',
      ),
    ),
  );
  for (let i = 0; i < 4; i++)
    await store.append(channel, [event('channelRenamed', { title: `t${i.toString()}` })], BigInt(i));
}

const transactionsWithManyStreams = z.object({ n: z.number() });

describe('copyEventLog: the PostgreSQL event log into KurrentDB', () => {
  it('keeps ids, revisions and the global order, and seals the plain fields on the way', async () => {
    const db = await database();
    await sourceLog(db);
    const { n } = await db.pool.one(sql.type(transactionsWithManyStreams)`
      SELECT count(*)::int AS n FROM (SELECT transaction_id FROM events GROUP BY transaction_id
        HAVING count(DISTINCT stream_name) > 1) t`);
    expect(n).toBeGreaterThan(0);
    const keys = keyring(db);
    const source = postgresStore(db);
    const { store: target } = await kurrentDb();
    const sourceEvents = await readAll(source);

    const result = await copyEventLog({ connectionString: db.url, target, keys, batchSize: 4 });

    expect(result).toMatchObject({
      complete: true,
      total: sourceEvents.length,
      found: 0,
      copied: sourceEvents.length,
      sealed: SEALABLE,
      erased: 0,
    });
    const copied = await readAll(target);
    expect(identity(copied)).toEqual(identity(sourceEvents));
    // Schema versions and metadata as stored: version 1 of deviceRegistered is not upcast.
    expect(copied.map((e) => e.metadata)).toEqual(sourceEvents.map((e) => e.metadata));
    const text = dataText(copied);
    for (const value of everyPlainValue) expect(text).not.toContain(value);
    // Opened and upcast as the service reads them, both stores tell the same story.
    const read = (store: EventStore) => readAll(withSealing(store, keys, upcast));
    expect(opened(await read(target))).toEqual(opened(await read(source)));
    expect((await read(target)).find((e) => e.type === 'deviceRegistered')).toMatchObject({
      data: { platform: 'mobile', token: 'PLAIN-fcm-token-ann', provider: 'fcm' },
    });

    const verified = await verifyCopy({ connectionString: db.url, target });
    expect(verified.difference).toBeNull();
    expect(verified.target).toEqual(verified.source);
    expect(verified.source.count).toBe(sourceEvents.length);

    // Run again: nothing left to copy.
    const again = await copyEventLog({ connectionString: db.url, target, keys });
    expect(again).toMatchObject({ complete: true, found: sourceEvents.length, copied: 0 });
    expect(identity(await readAll(target))).toEqual(identity(sourceEvents));
  });

  it('gives null, not a new key, to the fields of a user erased before the copy', async () => {
    const db = await database();
    await appendEventsFromBefore(db.url);
    await db.pool.query(sql.unsafe`
      INSERT INTO user_erasures (erasure_id, user_id, requested_by) VALUES (${randomUUID()}, 'ann', 'owner')`);
    const keys = keyring(db);
    const { store: target } = await kurrentDb();

    const result = await copyEventLog({ connectionString: db.url, target, keys });

    expect(result.erased).toBeGreaterThan(0);
    expect(result.sealed + result.erased).toBe(SEALABLE);
    const users = await db.pool.anyFirst(sql.type(z.object({ user_id: z.string() }))`
      SELECT user_id FROM data_keys ORDER BY user_id`);
    expect(users).toEqual(['bob']);
    const events = await readAll(withSealing(target, keys, upcast));
    const comment = events.find((e) => e.type === 'commentPosted');
    expect(comment?.data).toMatchObject({ authorId: 'ann', text: null });
    expect(dataText(events)).toContain('PLAIN comment by bob');
    expect(dataText(await readAll(target))).not.toContain('PLAIN');
    expect((await verifyCopy({ connectionString: db.url, target })).difference).toBeNull();
  });

  it('carries on after a stopped run and after a crash whose last append landed unanswered', async () => {
    const db = await database();
    await sourceLog(db);
    const keys = keyring(db);
    const { store: target } = await kurrentDb();
    const total = (await readAll(postgresStore(db))).length;

    // Stopped (Ctrl-C) after the first batch.
    const stopping = new AbortController();
    const first = await copyEventLog({
      connectionString: db.url,
      target,
      keys,
      batchSize: 5,
      signal: stopping.signal,
      onProgress: (p) => {
        if (p.copied > 0) stopping.abort();
      },
    });
    expect(first.complete).toBe(false);
    expect(first.copied).toBeGreaterThan(0);
    expect(first.copied).toBeLessThan(total);

    // Then a crash: the third append of the next run is written, and its answer never comes.
    let appends = 0;
    const crashing: EventStore = {
      ...target,
      async append(stream, events, expected) {
        const result = await target.append(stream, events, expected);
        appends += 1;
        if (appends === 3) throw new Error('connection lost after the commit');
        return result;
      },
    };
    await expect(copyEventLog({ connectionString: db.url, target: crashing, keys })).rejects.toThrow(
      'connection lost after the commit',
    );
    const landed = (await readAll(target)).length;
    expect(landed).toBeGreaterThan(first.copied);

    const last = await copyEventLog({ connectionString: db.url, target, keys, batchSize: 3 });

    expect(last).toMatchObject({ complete: true, found: landed, copied: total - landed });
    const copied = await readAll(target);
    expect(new Set(copied.map((e) => e.id)).size).toBe(total);
    const verified = await verifyCopy({ connectionString: db.url, target });
    expect(verified.difference).toBeNull();
    expect(verified.target).toEqual(verified.source);
    expect(dataText(copied)).not.toContain('PLAIN');
  });

  it('refuses a target that holds another log, and leaves it as it is', async () => {
    const db = await database();
    await sourceLog(db);
    const keys = keyring(db);
    const { store: target } = await kurrentDb();
    await target.append(
      `channel-${randomUUID()}`,
      [event('channelCreated', { title: 'other' })],
      'no_stream',
    );
    const before = await readAll(target);

    await expect(copyEventLog({ connectionString: db.url, target, keys })).rejects.toThrow(
      /not a copy of this event log \(event 0 of the log .*: its event id differs\)/,
    );
    expect(await readAll(target)).toEqual(before);
    const verified = await verifyCopy({ connectionString: db.url, target });
    expect(verified.difference).not.toBeNull();
    expect(verified.target.sha256).not.toBe(verified.source.sha256);
  });

  it('refuses a target with more events than the source', async () => {
    const db = await database();
    await appendEventsFromBefore(db.url);
    const keys = keyring(db);
    const { store: target } = await kurrentDb();
    await copyEventLog({ connectionString: db.url, target, keys });
    await target.append(
      `channel-${randomUUID()}`,
      [event('channelCreated', { title: 'later' })],
      'no_stream',
    );

    await expect(copyEventLog({ connectionString: db.url, target, keys })).rejects.toThrow(
      /holds more events than the source/,
    );
  });
});

describe('npm run cli -- events copy', () => {
  it('copies, verifies and prints the digests, and no event data', async () => {
    const db = await database();
    await appendEventsFromBefore(db.url);
    const { url, store: target } = await kurrentDb();
    const cli = async (args: string[]) => {
      const run = spawnService(process.execPath, ['src/cli.ts', 'events', 'copy', ...args], {
        ...TEST_SECRETS,
        DATABASE_URL: db.url,
        LOG_LEVEL: 'warn',
      });
      return { code: await run.exited, stdout: run.stdout(), output: run.output() };
    };

    const run = await cli(['--to', url]);

    expect(run.output).not.toContain('PLAIN');
    expect(run.code).toBe(0);
    const total = (await readAll(target)).length;
    expect(run.stdout).toContain(
      `copied ${total.toString()} events (${SEALABLE.toString()} sealed on the way)`,
    );
    const digest =
      /source: (\d+) events, sha256 ([0-9a-f]{64})\ntarget: (\d+) events, sha256 ([0-9a-f]{64})/.exec(
        run.stdout,
      );
    expect(digest?.[1]).toBe(total.toString());
    expect(digest?.[2]).toBe(digest?.[4]);
    expect(run.stdout).toContain('the copy matches');
    const head = await target.headPosition();
    expect(run.stdout).toContain(
      `target head: commit ${String(head?.commit)}, prepare ${String(head?.prepare)}\n`,
    );

    const again = await cli(['--to', url]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `copied 0 events (0 sealed on the way); ${total.toString()} were there already`,
    );

    const wrong = await cli(['--to', 'http://example.com']);
    expect(wrong.code).toBe(1);
    expect(wrong.output).toMatch(/--to/);
  });
});
