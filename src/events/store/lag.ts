import type { Position } from '../envelope.ts';
import type { EventStore } from './port.ts';

/**
 * How far a consumer at `after` is behind: the age of the oldest event of its categories it has not
 * passed yet, in seconds; 0 when it is caught up.
 */
export async function secondsBehind(
  store: EventStore,
  after: Position | null,
  categories: readonly string[],
): Promise<number> {
  const [next] = await store.readAll({ after, categories, maxCount: 1 });
  return next ? Math.max(0, (Date.now() - next.recordedAt.getTime()) / 1000) : 0;
}
