import DataLoader from 'dataloader';

/**
 * Lookups of one key each, made by requests that arrive together, go to the database as one query
 * (decision 022): `load` answers every key of a batch, in the order given. A batch gathers what one turn
 * of the event loop brings (`setImmediate`), so the first polls of many users read in one poll phase
 * share a query instead of queueing for connections one by one. Nothing is cached here: the callers
 * cache under change stamps.
 *
 * With `inFlight`, at most that many batches run at once (one per connection of the pool they use): the
 * keys that come meanwhile gather until one returns and then go together, as appends do, instead of
 * queueing for a connection in batches of one or two.
 */
export function batched<K, V>(
  load: (keys: readonly K[]) => Promise<readonly V[]>,
  options: { readonly inFlight?: number } = {},
): (key: K) => Promise<V> {
  const limit = options.inFlight ?? Number.POSITIVE_INFINITY;
  const gate = batchGate(() => limit);
  const loader = new DataLoader<K, V>((keys) => gate.run(() => load(keys)), {
    cache: false,
    maxBatchSize: 500,
    batchScheduleFn: gate.schedule,
  });
  return (key) => loader.load(key);
}

/**
 * At most `limit()` batches running at once: a batch scheduled while they run waits until one returns,
 * gathering what comes meanwhile (a DataLoader's `batchScheduleFn` and the work of its batches).
 */
export function batchGate(limit: () => number) {
  let running = 0;
  const held: (() => void)[] = [];
  return {
    schedule: (dispatch: () => void): void => {
      if (running < limit()) setImmediate(dispatch);
      else held.push(dispatch);
    },
    run: async <T>(work: () => Promise<T>): Promise<T> => {
      running += 1;
      try {
        return await work();
      } finally {
        running -= 1;
        held.shift()?.();
      }
    },
  };
}

/** An answer per key, in order, from rows grouped by their key (`fold` of no rows for a key without any). */
export function groupedBy<K, R, V>(
  keys: readonly K[],
  rows: readonly R[],
  keyOf: (row: R) => K,
  fold: (rows: readonly R[]) => V,
): V[] {
  const groups = new Map<K, R[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  return keys.map((key) => fold(groups.get(key) ?? []));
}
