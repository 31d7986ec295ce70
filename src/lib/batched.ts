import DataLoader from 'dataloader';

/**
 * Lookups of one key each, made by requests that arrive together, go to the database as one query
 * (decision 022): `load` answers every key of a batch, in the order given. A batch gathers what one turn
 * of the event loop brings (`setImmediate`), so the first polls of many users read in one poll phase
 * share a query instead of queueing for connections one by one. Nothing is cached here: the callers
 * cache under change stamps.
 */
export function batched<K, V>(load: (keys: readonly K[]) => Promise<readonly V[]>): (key: K) => Promise<V> {
  const loader = new DataLoader<K, V>(load, {
    cache: false,
    maxBatchSize: 500,
    batchScheduleFn: (run) => setImmediate(run),
  });
  return (key) => loader.load(key);
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
