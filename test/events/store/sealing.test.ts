import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { devicesStream } from '../../../src/events/devices.ts';
import { createDataKeys, type DataKeys } from '../../../src/events/store/data-keys.ts';
import { createPostgresEventStore } from '../../../src/events/store/postgres.ts';
import type { EventStore } from '../../../src/events/store/port.ts';
import { withSealing } from '../../../src/events/store/sealing.ts';
import { upcast } from '../../../src/events/upcasters.ts';
import { createLogger } from '../../../src/http/logger.ts';
import { masterKey } from '../../../src/lib/sealed-box.ts';
import { databaseText } from '../../support/database-text.ts';
import { createTestDatabase, useTestDatabase } from '../../support/database.ts';
import { eventually } from '../../support/eventually.ts';
import { describeEventStoreContract, freshCategory, testEvent } from './contract.ts';

const logger = createLogger('silent');
const MASTER = masterKey('sealing-test-master-secret-0123456789abcdef');

describeEventStoreContract('sealing around PostgreSQL', async () => {
  const db = await createTestDatabase();
  const keys = createDataKeys({ connectionString: db.url, master: MASTER });
  const store = withSealing(createPostgresEventStore({ connectionString: db.url, logger }), keys);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await db.drop();
    },
  };
});

describe('the sealing event store', () => {
  const db = useTestDatabase();
  const open = (master = MASTER, previous: (typeof MASTER)[] = []) => {
    const keys = createDataKeys({ connectionString: db.url, master, previous });
    const raw = createPostgresEventStore({ connectionString: db.url, logger });
    return { keys, raw, sealed: withSealing(raw, keys, upcast) };
  };
  const closeAll = async (...stores: { raw: EventStore; keys: DataKeys }[]) => {
    for (const s of stores) {
      await s.raw.close();
      await s.keys.close();
    }
  };
  const comment = (authorId: string, text: string) =>
    testEvent('commentPosted', {
      channelId: randomUUID(),
      postId: randomUUID(),
      authorId,
      text,
      at: new Date().toISOString(),
    });

  it('stores personal fields only sealed, and reads them back plain', async () => {
    const s = open();
    const stream = `comment-${randomUUID()}`;
    const secretText = `only-in-the-box-${randomUUID()}`;
    const event = comment('user-a', secretText);
    await s.sealed.append(stream, [event], 'no_stream');
    const [raw] = await s.raw.readStream(stream);
    expect(JSON.stringify(raw?.data)).not.toContain(secretText);
    expect(raw?.data).toMatchObject({ authorId: 'user-a', text: { sealed: 'v1' } });
    expect(await databaseText(db.pool)).not.toContain(secretText);
    const [read] = await s.sealed.readStream(stream);
    expect(read?.data).toEqual(event.data);
    await closeAll(s);
  });

  it('reads an erased user’s fields as null and leaves other users’ alone', async () => {
    const s = open();
    const mine = `comment-${randomUUID()}`;
    const theirs = `comment-${randomUUID()}`;
    const user = `erased-${randomUUID()}`;
    await s.sealed.append(mine, [comment(user, 'to be forgotten')], 'no_stream');
    await s.sealed.append(theirs, [comment('someone-else', 'to be kept')], 'no_stream');
    expect(await s.keys.erase(user)).not.toBeNull();
    // Another process, with nothing cached, finds the key gone too.
    const other = open();
    for (const store of [s.sealed, other.sealed]) {
      expect((await store.readStream(mine))[0]?.data).toMatchObject({ authorId: user, text: null });
      expect((await store.readStream(theirs))[0]?.data).toMatchObject({ text: 'to be kept' });
    }
    // A later write by the same host id gets a new key: a new user.
    await s.sealed.append(mine, [comment(user, 'written after')], 'any');
    const after = await other.sealed.readStream(mine);
    expect(after.map((e) => (e.data as { text: unknown }).text)).toEqual([null, 'written after']);
    expect(await s.keys.erase(`never-seen-${randomUUID()}`)).toBeNull();
    await closeAll(s, other);
  });

  it('seals a device token and telemetry, and still upcasts a registration from before providers', async () => {
    const s = open();
    const user = `device-user-${randomUUID()}`;
    const stream = devicesStream(user);
    const token = `fcm-token-${randomUUID()}`;
    const v1 = { ...testEvent('deviceRegistered', { platform: 'mobile', token }), id: randomUUID() };
    await s.sealed.append(stream, [v1], 'no_stream');
    expect(await databaseText(db.pool)).not.toContain(token);
    const [read] = await s.sealed.readStream(stream);
    expect(read?.data).toEqual({ platform: 'mobile', token, provider: 'fcm' });
    await s.keys.erase(user);
    s.keys.forget();
    const [erased] = await s.sealed.readStream(stream);
    expect(erased?.data).toEqual({ platform: 'mobile', token: null, provider: 'fcm' });
    await closeAll(s);
  });

  it('refuses a box moved into another event', async () => {
    const s = open();
    const a = `comment-${randomUUID()}`;
    const b = `comment-${randomUUID()}`;
    await s.sealed.append(a, [comment('mover', 'first')], 'no_stream');
    await s.sealed.append(b, [comment('mover', 'second')], 'no_stream');
    await db.pool.query(
      // The associated data is the event id and path: a box copied from a's event does not open in b's.
      (await import('slonik')).sql.unsafe`
        UPDATE events SET data = jsonb_set(data, '{text}', (SELECT data->'text' FROM events WHERE stream_name = ${a}))
        WHERE stream_name = ${b}`,
    );
    await expect(s.sealed.readStream(b)).rejects.toThrow();
    await closeAll(s);
  });

  it('opens keys wrapped under a previous master key, and rewraps them under the new one', async () => {
    const oldMaster = masterKey('the-old-master-secret-0123456789abcdefgh');
    const before = open(oldMaster);
    const stream = `comment-${randomUUID()}`;
    await before.sealed.append(
      stream,
      [comment(`rotated-${randomUUID()}`, 'survives rotation')],
      'no_stream',
    );
    const during = open(MASTER, [oldMaster]);
    expect((await during.sealed.readStream(stream))[0]?.data).toMatchObject({ text: 'survives rotation' });
    expect(await during.keys.rewrap()).toBeGreaterThan(0);
    const after = open(MASTER);
    expect((await after.sealed.readStream(stream))[0]?.data).toMatchObject({ text: 'survives rotation' });
    await closeAll(before, during, after);
  });

  it('makes one key per user when many ask at once, in two processes', async () => {
    const a = open();
    const b = open();
    const users = Array.from({ length: 40 }, (_, i) => `crowd-${i}-${randomUUID()}`);
    const asked = await Promise.all(
      users.flatMap((u) => [a.keys.keyOf(u), b.keys.keyOf(u), a.keys.keyOf(u)]),
    );
    for (let i = 0; i < users.length; i++) {
      const [first, second, third] = asked.slice(i * 3, i * 3 + 3);
      expect(second?.id).toBe(first?.id);
      expect(third?.id).toBe(first?.id);
      expect(second?.key.equals(first?.key ?? Buffer.alloc(0))).toBe(true);
    }
    expect(new Set(asked.map((k) => k.id)).size).toBe(users.length);
    // A cached key holds its own 32 bytes, not a view of a shared slab that it would keep alive.
    expect(asked.every((k) => k.key.buffer.byteLength === 32)).toBe(true);
    await closeAll(a, b);
  });

  it('finds the key a user already has when a process started later first meets the user', async () => {
    const earlier = open();
    const users = [`returning-${randomUUID()}`, `returning-${randomUUID()}`];
    const made = await Promise.all(users.map((u) => earlier.keys.keyOf(u)));
    const later = open();
    const newcomer = `newcomer-${randomUUID()}`;
    // One batch: two users whose keys exist, and one whose key is made now.
    const [first, second, third] = await Promise.all([...users, newcomer].map((u) => later.keys.keyOf(u)));
    expect([first?.id, second?.id]).toEqual(made.map((k) => k.id));
    expect(first?.key.equals(made[0]?.key ?? Buffer.alloc(0))).toBe(true);
    expect(made.map((k) => k.id)).not.toContain(third?.id);
    const count = await db.pool.oneFirst(sql.type(z.object({ n: z.coerce.number() }))`
      SELECT count(*) AS n FROM data_keys WHERE user_id = ANY(${sql.array([...users, newcomer], 'text')})`);
    expect(count).toBe(3);
    await closeAll(earlier, later);
  });

  it('goes on making and finding keys after its idle connections were cut', async () => {
    const s = open();
    const before = await s.keys.keyOf(`cut-${randomUUID()}`);
    await s.keys.byIds([before.id]);
    // Every other backend of this database: the keys' pools among them.
    await db.pool.query(sql.unsafe`
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()`);
    await eventually(
      () =>
        s.keys.keyOf(`after-cut-${randomUUID()}`).then(
          () => true,
          () => false,
        ),
      (made) => made,
    );
    s.keys.forget();
    expect((await s.keys.byIds([before.id])).get(before.id)?.equals(before.key)).toBe(true);
    await closeAll(s);
  });

  it('makes a user’s key on the hint that the user will write, and seals the append with that key', async () => {
    const s = open();
    const user = `hinted-${randomUUID()}`;
    const keysOf = () =>
      db.pool.anyFirst(sql.type(z.object({ key_id: z.string() }))`
        SELECT key_id FROM data_keys WHERE user_id = ${user}`);
    expect(await keysOf()).toEqual([]);
    s.sealed.prepareFor?.(user);
    await eventually(keysOf, (rows) => rows.length === 1);
    const stream = `comment-${randomUUID()}`;
    await s.sealed.append(stream, [comment(user, 'after the hint')], 'no_stream');
    const [raw] = await s.raw.readStream(stream);
    expect(raw?.data).toMatchObject({ text: { key: (await keysOf())[0] } });
    expect(await keysOf()).toHaveLength(1);
    await closeAll(s);
  });

  it('leaves the types a reader calls unopened sealed, as null, and opens the rest of its batch', async () => {
    const s = open();
    const category = freshCategory();
    const user = `reader-${randomUUID()}`;
    const reported = testEvent('commentReported', { reporterId: user, note: 'a note' });
    await s.sealed.append(`${category}-a`, [comment(user, 'not for this reader')], 'no_stream');
    await s.sealed.append(`${category}-b`, [reported], 'no_stream');
    const asked = { after: null, categories: [category], unopened: ['commentPosted'] };
    const expected = [
      { type: 'commentPosted', data: expect.objectContaining({ authorId: user, text: null }) as unknown },
      { type: 'commentReported', data: { reporterId: user, note: 'a note' } },
    ];
    expect(await s.sealed.readAll({ ...asked, maxCount: 10 })).toMatchObject(expected);
    const stop = new AbortController();
    for await (const batch of s.sealed.subscribe({ ...asked, signal: stop.signal })) {
      expect(batch).toMatchObject(expected);
      stop.abort();
    }
    // Without the option, the same reader opens both.
    const all = await s.sealed.readAll({ after: null, categories: [category], maxCount: 10 });
    expect(all[0]?.data).toMatchObject({ text: 'not for this reader' });
    await closeAll(s);
  });

  it('passes events with nothing personal through untouched', async () => {
    const s = open();
    const stream = `${freshCategory()}-x`;
    const event = testEvent('somethingElse', { text: 'not a listed type' });
    await s.sealed.append(stream, [event], 'no_stream');
    expect((await s.raw.readStream(stream))[0]?.data).toEqual(event.data);
    await closeAll(s);
  });
});
