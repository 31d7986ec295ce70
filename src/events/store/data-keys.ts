import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { batched } from '../../lib/batched.ts';
import { type MasterKey, newDataKey, open, seal } from '../../lib/sealed-box.ts';

/** A user's data key: what seals the personal fields of the user's events (decision 048). */
export interface DataKey {
  readonly id: string;
  readonly key: Buffer;
}

export interface DataKeys {
  /** The user's key, made on first use. After an erasure, a new one: the user starts afresh. */
  keyOf(userId: string): Promise<DataKey>;
  /** The keys of these ids; null for an id whose key was erased. */
  byIds(ids: readonly string[]): Promise<ReadonlyMap<string, Buffer | null>>;
  /** Deletes the user's key, and with it every field it sealed; the id of the key erased, if there was one. */
  erase(userId: string): Promise<string | null>;
  /** Drops a key from this process's cache (another process erased it), or every key. */
  forget(keyId?: string): void;
  /** Wraps every key under the current master key; how many were wrapped anew. */
  rewrap(): Promise<number>;
  close(): Promise<void>;
}

export interface DataKeysOptions {
  readonly connectionString: string;
  /** Wraps new keys; the master keys of earlier secrets still unwrap what they wrapped. */
  readonly master: MasterKey;
  readonly previous?: readonly MasterKey[];
  /**
   * True when the events are appended to this same database (the PostgreSQL store). New keys then commit
   * without waiting for the WAL flush: an event sealed with a key is appended after the key's commit, so
   * the append's own durable commit flushes the key's with it, and a key lost in a crash before that
   * sealed nothing. Not so with KurrentDB, whose commits flush nothing here.
   */
  readonly eventsInThisDatabase?: boolean;
  /** Keys held unwrapped in memory (default 50,000: about 5 MB). */
  readonly cacheSize?: number;
}

interface Row {
  key_id: string;
  user_id: string;
  wrapped: Buffer;
  master_id: string;
}

const MAKING_CONNECTIONS = 2;
const wrapContext = (keyId: string) => `data-key:${keyId}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createDataKeys(options: DataKeysOptions): DataKeys {
  // Lookups planned for the table as it is: a plan cached while `data_keys` was small scans it whole, and
  // went on doing so for every batch of keys as it grew, until the next ANALYZE.
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: 2,
    options: '-c plan_cache_mode=force_custom_plan',
  });
  // Only inserts, which have no plan to choose (they probe the unique indexes), so they stay prepared.
  // See `eventsInThisDatabase`.
  const making = new pg.Pool({
    connectionString: options.connectionString,
    max: MAKING_CONNECTIONS,
    ...(options.eventsInThisDatabase ? { options: '-c synchronous_commit=off' } : {}),
  });
  // An idle connection that drops (a server restart, a network cut) is an 'error' on its pool, which
  // would end the process unheard; the pool has already let the client go, and the next query opens
  // another, as a query that fails meanwhile tells its caller.
  for (const p of [pool, making]) p.on('error', () => undefined);
  const masters = new Map([options.master, ...(options.previous ?? [])].map((m) => [m.id, m]));
  const max = options.cacheSize ?? 50_000;
  const byId = new LRUCache<string, { userId: string; key: Buffer }>({ max });
  const byUser = new LRUCache<string, string>({ max });
  const pending = new Map<string, Promise<DataKey>>();

  const unwrap = (row: Row): Buffer => {
    const master = masters.get(row.master_id);
    if (!master) {
      throw new Error(
        `data key ${row.key_id} is wrapped by an unknown master key: give this process the service's ` +
          'DATA_KEY_SECRET, and the one before a rotation as DATA_KEY_SECRET_PREVIOUS',
      );
    }
    const opened = open(master.key, row.wrapped, wrapContext(row.key_id));
    // A copy in memory of its own: a small Buffer is a view of a shared 8 KB slab, which a cached key
    // would keep alive: kilobytes for each key of the cache.
    const key = Buffer.alloc(opened.length);
    opened.copy(key);
    return key;
  };
  const remember = (keyId: string, userId: string, key: Buffer): DataKey => {
    byId.set(keyId, { userId, key });
    byUser.set(userId, keyId);
    return { id: keyId, key };
  };
  const rememberRow = (row: Row): DataKey => remember(row.key_id, row.user_id, unwrap(row));

  /**
   * Makes the keys of users first seen together in one insert (`batched`: a crowd of new commenters costs
   * a statement per turn of the event loop, or per return of a statement while both connections are
   * busy, not one each). The wrapped keys, all of one length, go as one
   * binary parameter: an array of them would travel as hex text, escaped element by element. The users
   * who had a key already (made by another process, or before this one started) are read after; a user
   * found in neither had the key erased in between, and is tried again.
   */
  const make = batched(
    async (userIds: readonly string[]): Promise<DataKey[]> => {
      const found = new Map<string, DataKey>();
      for (let missing = [...new Set(userIds)]; missing.length > 0;) {
        const fresh = new Map<string, { key: Buffer; wrapped: Buffer }>(
          missing.map(() => {
            const id: string = randomUUID();
            const key = newDataKey();
            return [id, { key, wrapped: seal(options.master.key, key, wrapContext(id)) }] as const;
          }),
        );
        const wrapped = [...fresh.values()].map((f) => f.wrapped);
        const width = wrapped[0]?.length ?? 0;
        // Named: prepared once per connection, as it runs for every batch of new users.
        const made = await making.query<Pick<Row, 'key_id' | 'user_id'>>({
          name: 'data-keys-make',
          text: `INSERT INTO data_keys (key_id, user_id, wrapped, master_id)
               SELECT w.key_id, w.user_id, substring($3::bytea FROM (w.n::int - 1) * $5::int + 1 FOR $5::int), $4
               FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS w (key_id, user_id, n)
               ON CONFLICT (user_id) DO NOTHING RETURNING key_id, user_id`,
          values: [[...fresh.keys()], missing, Buffer.concat(wrapped), options.master.id, width],
        });
        for (const row of made.rows) {
          const own = fresh.get(row.key_id);
          if (own) found.set(row.user_id, remember(row.key_id, row.user_id, own.key));
        }
        const taken = missing.filter((u) => !found.has(u));
        if (taken.length > 0) {
          const { rows } = await pool.query<Row>({
            name: 'data-keys-of-users',
            text: 'SELECT key_id, user_id, wrapped, master_id FROM data_keys WHERE user_id = ANY($1::text[])',
            values: [taken],
          });
          for (const row of rows) found.set(row.user_id, rememberRow(row));
        }
        missing = taken.filter((u) => !found.has(u));
      }
      return userIds.map((u) => {
        const key = found.get(u);
        if (!key) throw new Error('a data key was neither made nor found');
        return key;
      });
    },
    { inFlight: MAKING_CONNECTIONS },
  );

  return {
    keyOf(userId) {
      const cached = byUser.get(userId);
      const entry = cached === undefined ? undefined : byId.get(cached);
      if (cached !== undefined && entry) return Promise.resolve({ id: cached, key: entry.key });
      const asked = pending.get(userId) ?? make(userId).finally(() => pending.delete(userId));
      pending.set(userId, asked);
      return asked;
    },

    async byIds(ids) {
      const found = new Map<string, Buffer | null>();
      const missing: string[] = [];
      for (const id of new Set(ids)) {
        const entry = byId.get(id);
        if (entry) found.set(id, entry.key);
        // Not a key id at all (only this code writes them): no key opens it.
        else if (!UUID.test(id)) found.set(id, null);
        else missing.push(id);
      }
      if (missing.length === 0) return found;
      const { rows } = await pool.query<Row>({
        name: 'data-keys-by-id',
        text: 'SELECT key_id, user_id, wrapped, master_id FROM data_keys WHERE key_id = ANY($1::uuid[])',
        values: [missing],
      });
      for (const row of rows) found.set(row.key_id, rememberRow(row).key);
      for (const id of missing) if (!found.has(id)) found.set(id, null);
      return found;
    },

    async erase(userId) {
      const { rows } = await pool.query<{ key_id: string }>(
        'DELETE FROM data_keys WHERE user_id = $1 RETURNING key_id',
        [userId],
      );
      const id = rows[0]?.key_id ?? null;
      byUser.delete(userId);
      if (id !== null) byId.delete(id);
      return id;
    },

    forget(keyId) {
      if (keyId === undefined) {
        byId.clear();
        byUser.clear();
        return;
      }
      const entry = byId.get(keyId);
      byId.delete(keyId);
      if (entry && byUser.get(entry.userId) === keyId) byUser.delete(entry.userId);
    },

    async rewrap() {
      const { rows } = await pool.query<Row>(
        'SELECT key_id, user_id, wrapped, master_id FROM data_keys WHERE master_id <> $1',
        [options.master.id],
      );
      let count = 0;
      for (const row of rows) {
        const wrapped = seal(options.master.key, unwrap(row), wrapContext(row.key_id));
        const done = await pool.query(
          'UPDATE data_keys SET wrapped = $2, master_id = $3 WHERE key_id = $1 AND master_id = $4',
          [row.key_id, wrapped, options.master.id, row.master_id],
        );
        count += done.rowCount ?? 0;
      }
      return count;
    },

    async close() {
      await Promise.all([pool.end(), making.end()]);
    },
  };
}
