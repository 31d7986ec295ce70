import { LRUCache } from 'lru-cache';

export interface ReadCacheOptions<T extends object> {
  /** Reads the provider; called once for any number of concurrent misses of one key. */
  readonly load: (key: string) => Promise<T>;
  /** How long an entry answers without asking the provider again, when no invalidation came. */
  readonly ttlMs: number;
  /** Entries kept (least recently used go first). */
  readonly max: number;
  readonly now?: () => number;
}

export interface CachedRead<T> {
  readonly value: T;
  /** Milliseconds since the epoch when the provider answered with this value. */
  readonly fetchedAt: number;
  /** True when the provider could not be read and this is the last copy it gave. */
  readonly stale: boolean;
}

interface Entry<T> {
  readonly value: T;
  readonly fetchedAt: number;
  /** The invalidation clock when the load started: an invalidation after it makes the entry old. */
  readonly startedAt: number;
}

export interface ReadCache<T> {
  read(key: string): Promise<CachedRead<T>>;
  /** The next read of `key` asks the provider again; the copy stays as the fallback for an outage. */
  invalidate(key: string): void;
  /** `invalidate` for every key at once: invalidations may have been missed. */
  invalidateAll(): void;
  /** Forgets the copy (an erased contact's), so that not even an outage answers it again. */
  delete(key: string): void;
  /** The copy held, if any, without loading or counting as a use. */
  peek(key: string): T | undefined;
}

/**
 * Reads from the provider through an LRU whose `fetch` makes one load for all concurrent readers of a key
 * (lru-cache's request coalescing), with a TTL as the safety net for a webhook that never came.
 *
 * An invalidation does not drop the copy: it records the clock, and a read that finds a copy loaded
 * before it forces a reload. So a read during an outage can still answer with the last copy (marked
 * stale) instead of an error, and a load that was already running when the invalidation arrived (and so
 * may have read the old state) is not trusted: the reader loads once more.
 */
export function createReadCache<T extends object>(options: ReadCacheOptions<T>): ReadCache<T> {
  const now = options.now ?? Date.now;
  let clock = 0;
  let allInvalidatedAt = 0;
  // Outlives no entry it could concern: an entry loaded before an invalidation older than the TTL has
  // expired by its own TTL anyway.
  const invalidatedAt = new LRUCache<string, number>({ max: options.max, ttl: options.ttlMs });
  const entries = new LRUCache<string, Entry<T>>({
    max: options.max,
    ttl: options.ttlMs,
    perf: { now },
    noDeleteOnFetchRejection: true,
    // A load under way when its key is deleted still answers its readers, who then find it outdated.
    ignoreFetchAbort: true,
    fetchMethod: async (key) => {
      clock += 1;
      const startedAt = clock;
      const value = await options.load(key);
      return { value, fetchedAt: now(), startedAt };
    },
  });

  const outdated = (key: string, entry: Entry<T> | undefined) =>
    entry !== undefined && entry.startedAt <= Math.max(invalidatedAt.get(key) ?? 0, allInvalidatedAt);

  async function read(key: string): Promise<CachedRead<T>> {
    // Twice at most: once to join or start a load, once more if that load began before an invalidation.
    for (let attempt = 0; ; attempt += 1) {
      let entry: Entry<T> | undefined;
      try {
        const forceRefresh = outdated(key, entries.peek(key, { allowStale: true }));
        entry = await entries.fetch(key, { forceRefresh });
      } catch (error) {
        const last = entries.peek(key, { allowStale: true });
        if (last === undefined) throw error;
        return { value: last.value, fetchedAt: last.fetchedAt, stale: true };
      }
      if (entry === undefined) throw new Error(`read cache: no value for ${key}`);
      if (!outdated(key, entry) || attempt >= 1) {
        return { value: entry.value, fetchedAt: entry.fetchedAt, stale: false };
      }
    }
  }

  function invalidate(key: string): void {
    clock += 1;
    invalidatedAt.set(key, clock);
  }

  return {
    read,
    invalidate,
    invalidateAll() {
      clock += 1;
      allInvalidatedAt = clock;
    },
    delete(key) {
      invalidate(key);
      entries.delete(key);
    },
    peek: (key) => entries.peek(key, { allowStale: true })?.value,
  };
}
