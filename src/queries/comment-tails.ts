import { LRUCache } from 'lru-cache';
import type { DatabasePool } from '../db/pool.ts';
import { keptWhileAsked } from '../lib/kept-while-asked.ts';
import type { ReadChanges } from '../projections/changes.ts';
import { scopes } from '../projections/scopes.ts';
import { commentChanges, type CommentRow, latestChanges } from './comments.ts';

export interface CommentTails {
  /** What `commentChanges` would read (a post's changes after `since`, in change order), from memory when it can. */
  changesAfter(
    request: { readonly channelId: string; readonly postId: string; readonly since: number },
    limit: number,
  ): Promise<readonly CommentRow[]>;
}

/** A post's latest changes, one row per comment, as read under the tokens beside them. */
interface Tail {
  /** The change feed's token of the channel's moderators (their badges are in the rows), epoch included. */
  readonly base: string;
  /** The thread's token. */
  readonly thread: string;
  /** Every change after this one is in `rows`. */
  readonly floor: number;
  /** In change order. */
  readonly rows: readonly CommentRow[];
}

interface Loading {
  readonly base: string;
  readonly thread: string;
  readonly tail: Promise<Tail>;
}

/** Tails kept. */
const POSTS = 1_000;

/** The first index whose change is after `since`. */
function firstAfter(rows: readonly CommentRow[], since: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((rows[middle]?.changeSeq ?? 0) <= since) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * An open thread polls with its own cursor (`since`), so readers of one busy post rarely ask the same
 * question twice and a cache of answers misses. Instead each post's latest changes are kept in memory and
 * every cursor is answered from them (decision 022): a comment costs one small read after the tail's end
 * (shared by every poll that arrives meanwhile), not one read per poll. Change numbers are given by the
 * comments projection alone, in commit order, so what comes after the tail's end is exactly what is new.
 * A change of the moderators, or a new epoch of the change feed (a rebuild), reads the tail afresh; a
 * cursor older than the tail reads the table.
 */
export function createCommentTails(
  pool: DatabasePool,
  changes: ReadChanges,
  /** The changes each tail holds. */
  size = 200,
): CommentTails {
  const tails = new LRUCache<string, Tail>({ max: POSTS, ...keptWhileAsked });
  const loading = new Map<string, Loading>();

  const read = async (postId: string, held: Tail | undefined, base: string, thread: string) => {
    const end = held?.rows.at(-1)?.changeSeq ?? held?.floor;
    const added = held && end !== undefined ? await commentChanges(pool, postId, end, size) : null;
    if (!held || added === null || added.length === size) {
      const rows = await latestChanges(pool, postId, size);
      const first = rows[0];
      return { base, thread, rows, floor: rows.length < size || !first ? 0 : first.changeSeq - 1 };
    }
    const changed = new Set(added.map((r) => r.id));
    const kept = [...held.rows.filter((r) => !changed.has(r.id)), ...added];
    const dropped = kept.length - size;
    const floor = dropped > 0 ? (kept[dropped - 1]?.changeSeq ?? held.floor) : held.floor;
    return { base, thread, rows: dropped > 0 ? kept.slice(dropped) : kept, floor };
  };

  const current = async (channelId: string, postId: string): Promise<Tail> => {
    const base = changes.of(scopes.moderators(channelId));
    const thread = changes.of(scopes.thread(postId));
    const held = tails.get(postId);
    if (held?.base === base && held.thread === thread) return held;
    const pending = loading.get(postId);
    if (pending) {
      const tail = await pending.tail;
      // Read under older tokens: a change may have committed after it, so look again.
      return pending.base === base && pending.thread === thread ? tail : current(channelId, postId);
    }
    const tail = read(postId, held?.base === base ? held : undefined, base, thread)
      .then((t) => {
        tails.set(postId, t);
        return t;
      })
      .finally(() => loading.delete(postId));
    loading.set(postId, { base, thread, tail });
    return tail;
  };

  return {
    async changesAfter({ channelId, postId, since }, limit) {
      const tail = await current(channelId, postId);
      if (since < tail.floor) return commentChanges(pool, postId, since, limit);
      const from = firstAfter(tail.rows, since);
      return tail.rows.slice(from, from + limit);
    },
  };
}
