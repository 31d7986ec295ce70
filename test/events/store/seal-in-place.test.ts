import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RecordedEvent } from '../../../src/events/envelope.ts';
import { createDataKeys, type DataKeys } from '../../../src/events/store/data-keys.ts';
import type { EventStore } from '../../../src/events/store/port.ts';
import { createPostgresEventStore } from '../../../src/events/store/postgres.ts';
import { sealStoredEvents } from '../../../src/events/store/seal-in-place.ts';
import { withSealing } from '../../../src/events/store/sealing.ts';
import { upcast } from '../../../src/events/upcasters.ts';
import { createLogger } from '../../../src/http/logger.ts';
import { masterKey } from '../../../src/lib/sealed-box.ts';
import { closeAfterEach } from '../../support/closing.ts';
import type { TestDatabase } from '../../support/database.ts';
import { databaseText } from '../../support/database-text.ts';
import {
  appendEventsFromBefore,
  event,
  PERSONAL_EVENTS,
  PLAIN,
  SEALABLE,
} from '../../support/events-from-before.ts';

const logger = createLogger('silent');
const SECRET_A = 'first-master-secret-0123456789abcdefghijklmn';
const SECRET_B = 'second-master-secret-0123456789abcdefghijklm';
const everyPlainValue = [...PLAIN.ann, ...PLAIN.bob];

const { closing, database } = closeAfterEach();

function keyring(db: TestDatabase, secret = SECRET_A, previous: string[] = []): DataKeys {
  const keys = createDataKeys({
    connectionString: db.url,
    master: masterKey(secret),
    previous: previous.map(masterKey),
  });
  closing(keys);
  return keys;
}

/** The store as the service builds it: sealing around a PostgreSQL store, upcasting after opening. */
function sealingStore(db: TestDatabase, keys: DataKeys): EventStore {
  const store = createPostgresEventStore({ connectionString: db.url, logger });
  closing(store);
  return withSealing(store, keys, upcast);
}

const readAll = (store: EventStore) => store.readAll({ after: null, maxCount: 1_000 });
const dataOf = (events: readonly RecordedEvent[], type: string, field: string) =>
  events.filter((e) => e.type === type).map((e) => (e.data as Record<string, unknown>)[field]);

const storedRow = z.object({
  global_position: z.string(),
  transaction_id: z.string(),
  event_id: z.string(),
  stream_name: z.string(),
  stream_revision: z.string(),
  event_type: z.string(),
  metadata: z.unknown(),
  recorded_at: z.string(),
});
/** Everything of each stored event but its data. */
const storedRows = (db: TestDatabase) =>
  db.pool.any(sql.type(storedRow)`
    SELECT global_position::text, transaction_id::text, event_id, stream_name, stream_revision::text,
      event_type, metadata, recorded_at::text
    FROM events ORDER BY global_position`);

describe('sealStoredEvents: events from before sealing, sealed in place', () => {
  it('leaves no personal value in the clear, and reads back what was there', async () => {
    const db = await database();
    await appendEventsFromBefore(db.url);
    const keys = keyring(db);
    const store = sealingStore(db, keys);
    const before = await readAll(store);
    const rowsBefore = await storedRows(db);
    const headBefore = await store.headPosition();
    const text = await databaseText(db.pool);
    for (const value of everyPlainValue) expect(text).toContain(value);

    const result = await sealStoredEvents({ connectionString: db.url, keys, batchSize: 4 });

    expect(result).toEqual({
      complete: true,
      scanned: PERSONAL_EVENTS,
      total: PERSONAL_EVENTS,
      sealed: SEALABLE,
      alreadySealed: PERSONAL_EVENTS - SEALABLE,
      erased: 0,
    });
    const sealedText = await databaseText(db.pool);
    for (const value of everyPlainValue) expect(sealedText).not.toContain(value);
    expect(sealedText).toContain('a moderator reason');

    // The same events, opened and upcast as before: version 1 of deviceRegistered still gains its provider.
    const after = await readAll(store);
    expect(after).toEqual(before);
    expect(after.find((e) => e.type === 'deviceRegistered')).toMatchObject({
      data: { platform: 'mobile', token: 'PLAIN-fcm-token-ann', provider: 'fcm' },
      metadata: { schemaVersion: 2 },
    });
    // Ids, streams, revisions, positions and metadata as appended; nothing new to a subscription.
    expect(await storedRows(db)).toEqual(rowsBefore);
    expect(await store.headPosition()).toEqual(headBefore);
    expect(await store.readAll({ after: headBefore, maxCount: 10 })).toEqual([]);

    const again = await sealStoredEvents({ connectionString: db.url, keys });
    expect(again).toMatchObject({ complete: true, sealed: 0, alreadySealed: PERSONAL_EVENTS, erased: 0 });
    expect(await readAll(store)).toEqual(before);
  });

  it('carries on where a stopped run left off', async () => {
    const db = await database();
    await appendEventsFromBefore(db.url);
    const keys = keyring(db);
    const before = await readAll(sealingStore(db, keys));
    const stopping = new AbortController();

    const first = await sealStoredEvents({
      connectionString: db.url,
      keys,
      batchSize: 3,
      signal: stopping.signal,
      onProgress: () => {
        stopping.abort();
      },
    });

    expect(first).toMatchObject({ complete: false, scanned: 3 });
    expect(first.sealed).toBeGreaterThan(0);
    const halfway = await databaseText(db.pool);
    expect(everyPlainValue.filter((v) => halfway.includes(v)).length).toBeGreaterThan(0);
    // A reader meanwhile sees both forms as one.
    expect(await readAll(sealingStore(db, keys))).toEqual(before);

    const second = await sealStoredEvents({ connectionString: db.url, keys, batchSize: 3 });

    expect(second.complete).toBe(true);
    expect(first.sealed + second.sealed).toBe(SEALABLE);
    expect(second.alreadySealed).toBe(PERSONAL_EVENTS - second.sealed);
    const text = await databaseText(db.pool);
    for (const value of everyPlainValue) expect(text).not.toContain(value);
    expect(await readAll(sealingStore(db, keys))).toEqual(before);
  });

  it('erasing a user after the run erases that user’s fields and no one else’s', async () => {
    const db = await database();
    await appendEventsFromBefore(db.url);
    const keys = keyring(db);
    await sealStoredEvents({ connectionString: db.url, keys });

    expect(await keys.erase('ann')).not.toBeNull();

    const events = await readAll(sealingStore(db, keys));
    expect(dataOf(events, 'commentPosted', 'text')).toEqual([null, 'PLAIN comment by bob']);
    expect(dataOf(events, 'complaintSubmitted', 'text')).toEqual([null]);
    expect(dataOf(events, 'complaintSubmitted', 'attachments')).toEqual([
      [expect.objectContaining({ name: null }), expect.objectContaining({ name: null })],
    ]);
    expect(dataOf(events, 'deviceRegistered', 'token')).toEqual([null, null]);
    expect(dataOf(events, 'deviceRegistered', 'telemetry')).toEqual([undefined, null]);
    expect(dataOf(events, 'deviceRegistered', 'provider')).toEqual(['fcm', 'telegram']);
    expect(dataOf(events, 'deviceUnregistered', 'token')).toEqual([null]);
    expect(dataOf(events, 'commentRejected', 'snippet')).toEqual([null]);
    expect(dataOf(events, 'commentReported', 'note')).toEqual(['PLAIN note by bob', undefined]);
    expect(dataOf(events, 'csatRated', 'comment')).toEqual(['PLAIN csat by bob', null]);
    expect(dataOf(events, 'userBanned', 'reason')).toEqual(['PLAIN ban reason for bob']);
  });

  it('gives null, not a new key, to users erased before the run, and seals what came after', async () => {
    const db = await database();
    await appendEventsFromBefore(db.url);
    // Bob's erasure is in the log; ann's is asked for and under way. Bob then came back, and a process
    // still on the old version wrote his new comment in the clear.
    const plainStore = createPostgresEventStore({ connectionString: db.url, logger });
    closing(plainStore);
    const erasure = { userId: 'bob', erasureId: randomUUID(), at: new Date().toISOString() };
    await plainStore.append('userPrivacy-bob', [event('userErased', erasure)], 'no_stream');
    await db.pool.query(sql.unsafe`
      INSERT INTO user_erasures (erasure_id, user_id, requested_by) VALUES (${randomUUID()}, 'ann', 'owner')`);
    const comeBack = { channelId: randomUUID(), postId: randomUUID(), authorId: 'bob', at: erasure.at };
    await plainStore.append(
      `comment-${randomUUID()}`,
      [event('commentPosted', { ...comeBack, text: 'PLAIN bob is back' })],
      'no_stream',
    );
    const keys = keyring(db);

    const result = await sealStoredEvents({ connectionString: db.url, keys });

    expect(result).toMatchObject({ complete: true, sealed: 1, erased: SEALABLE });
    const owners = await db.pool.anyFirst(sql.type(z.object({ user_id: z.string() }))`
      SELECT user_id FROM data_keys ORDER BY user_id`);
    expect(owners).toEqual(['bob']);
    const text = await databaseText(db.pool);
    for (const value of [...everyPlainValue, 'PLAIN bob is back']) expect(text).not.toContain(value);
    const events = await readAll(sealingStore(db, keys));
    expect(dataOf(events, 'commentPosted', 'text')).toEqual([null, null, 'PLAIN bob is back']);
    expect(dataOf(events, 'userBanned', 'reason')).toEqual([null]);
    expect(dataOf(events, 'deviceRegistered', 'token')).toEqual([null, null]);
  });
});

/** `keys`, with `race` run once just after the first of ann's keys is handed out: while her batch is sealed. */
function racing(keys: DataKeys, race: () => Promise<void>) {
  let raced = false;
  return {
    raced: () => raced,
    forget: (keyId?: string) => {
      keys.forget(keyId);
    },
    keyOf: async (userId: string) => {
      const key = await keys.keyOf(userId);
      if (userId === 'ann' && !raced) {
        raced = true;
        await race();
      }
      return key;
    },
  };
}

describe('sealStoredEvents racing an erasure', () => {
  const askErasure = (db: TestDatabase) =>
    db.pool.query(sql.unsafe`
      INSERT INTO user_erasures (erasure_id, user_id, requested_by) VALUES (${randomUUID()}, 'ann', 'owner')`);

  it.each([
    { race: 'the erasure is asked for', eraseKey: false },
    { race: 'the erasure is asked for and the key erased', eraseKey: true },
  ])('$race while a batch is sealed: the user’s fields still end up null', async ({ eraseKey }) => {
    const db = await database();
    await appendEventsFromBefore(db.url);
    const keys = keyring(db);
    const keysInRace = racing(keys, async () => {
      await askErasure(db);
      if (eraseKey) await keys.erase('ann');
    });

    const result = await sealStoredEvents({ connectionString: db.url, keys: keysInRace });

    expect(keysInRace.raced()).toBe(true);
    // Bob's four values are in four events.
    expect(result).toMatchObject({ complete: true, sealed: 4, erased: SEALABLE - 4 });
    const text = await databaseText(db.pool);
    for (const value of everyPlainValue) expect(text).not.toContain(value);
    const events = await readAll(sealingStore(db, keys));
    expect(dataOf(events, 'commentPosted', 'text')).toEqual([null, 'PLAIN comment by bob']);
    expect(dataOf(events, 'commentRejected', 'snippet')).toEqual([null]);
    expect(dataOf(events, 'userBanned', 'reason')).toEqual(['PLAIN ban reason for bob']);
  });

  it('a key deleted under a batch with no erasure asked for: sealed anew, nothing lost', async () => {
    const db = await database();
    await appendEventsFromBefore(db.url);
    const keys = keyring(db);
    const before = await readAll(sealingStore(db, keys));
    const keysInRace = racing(keys, async () => {
      await keys.erase('ann');
    });

    const result = await sealStoredEvents({ connectionString: db.url, keys: keysInRace });

    expect(keysInRace.raced()).toBe(true);
    expect(result).toMatchObject({ complete: true, sealed: SEALABLE, erased: 0 });
    const text = await databaseText(db.pool);
    for (const value of everyPlainValue) expect(text).not.toContain(value);
    expect(await readAll(sealingStore(db, keys))).toEqual(before);
  });
});

describe('data keys after a rotation of the master secret', () => {
  it('rewrap puts every key under the new secret, and the old one is no longer needed', async () => {
    const db = await database();
    await appendEventsFromBefore(db.url);
    const underA = keyring(db, SECRET_A);
    await sealStoredEvents({ connectionString: db.url, keys: underA });
    const before = await readAll(sealingStore(db, underA));

    const rotating = keyring(db, SECRET_B, [SECRET_A]);
    expect(await rotating.rewrap()).toBe(2);
    expect(await rotating.rewrap()).toBe(0);

    const onlyB = keyring(db, SECRET_B);
    expect(await readAll(sealingStore(db, onlyB))).toEqual(before);
    expect(dataOf(before, 'commentPosted', 'text')).toEqual(['PLAIN comment by ann', 'PLAIN comment by bob']);
    const onlyA = keyring(db, SECRET_A);
    await expect(readAll(sealingStore(db, onlyA))).rejects.toThrow(/unknown master key/);
  });
});
