import { digest } from '../lib/digest.ts';
import { batched } from '../lib/batched.ts';
import { keptWhileAsked } from '../lib/kept-while-asked.ts';
import { LRUCache } from 'lru-cache';
import type { DatabasePool } from '../db/pool.ts';
import type { ReadChanges } from '../projections/changes.ts';
import { scopes } from '../projections/scopes.ts';
import { createCommentTails } from './comment-tails.ts';
import { type CommentRow, commentTarget, latestComments } from './comments.ts';
import { areCommentModerators } from './moderation.ts';

export interface CommentPollRequest {
  readonly channelId: string;
  readonly postId: string;
  readonly userId: string;
  /** The change counter the client has seen; null for the latest page. */
  readonly since: number | null;
  readonly limit: number;
}

/** A tombstone for a comment the reader may not (or no longer) see. */
export interface Tombstone {
  readonly id: string;
  readonly status: 'hidden' | 'deleted';
}

export interface CommentPollAnswer {
  /** An entity tag over everything this reader gets, known without building the page. */
  readonly etag: string;
  /** The change counter to poll from next. */
  readonly next: number;
  readonly viewerIsModerator: boolean;
  /** The period of media links (decision 033) the tag was made for: the pictures' links are minted for it. */
  readonly linkPeriod: number;
  /** Whole comments this reader may see, and tombstones for the rest, in the page's order (for a 200). */
  items(): readonly (CommentRow | Tombstone)[];
}

export interface CommentsCache {
  /** Null when clients cannot see the post in that channel. */
  poll(request: CommentPollRequest): Promise<CommentPollAnswer | null>;
}

interface CachedPage {
  readonly rows: readonly CommentRow[];
  readonly next: number;
  /** The tag for a reader and for a moderator (who also sees hidden comments), neither an author on the page. */
  readonly etags: { readonly reader: string; readonly moderator: string };
  /** For each author on the page, a digest of where their comments are (what `mine` changes with). */
  readonly authors: ReadonlyMap<string, string>;
  /** Whether a comment on the page has a picture: only then does the page change with the period of links. */
  readonly hasImages: boolean;
}

/** A page as cached: its tags are built once, not on every poll. */
function cachedPage(rows: readonly CommentRow[], next: number): CachedPage {
  const hash = digest(JSON.stringify({ items: rows, head: next }), 22);
  const positions = new Map<string, number[]>();
  rows.forEach((row, i) => {
    // An erased comment is nobody's.
    if (row.authorId !== null) positions.set(row.authorId, [...(positions.get(row.authorId) ?? []), i]);
  });
  const authors = new Map([...positions].map(([author, at]) => [author, digest(at.join(), 22)]));
  const hasImages = rows.some((row) => row.image !== null);
  return { rows, next, etags: { reader: `W/"${hash}.r"`, moderator: `W/"${hash}.m"` }, authors, hasImages };
}

/**
 * An open comment thread polls every few seconds, and most polls find nothing new. As with the feed,
 * answers are cached under the stamps of the scopes they come from (decision 022), so a poll that changes
 * nothing costs a few map lookups and no SQL, and a comment on one post moves no other post's thread:
 * - whether the post is visible: the channels and the channel's feed;
 * - whether the reader moderates the channel (and so sees hidden comments): the channel's moderators;
 * - the page itself, the same for every reader of one kind: the thread and the channel's moderators
 *   (authors' badges).
 * The reader's own part (`mine`) is found in the page, not read. A cursor's changes come from the post's
 * tail in memory (`comment-tails.ts`), since every reader polls with a cursor of their own.
 * Pictures are signed links minted per period (`links`, decision 033): the tag of a page with pictures
 * names the period, so it changes once per period, with no read.
 */
export function createCommentsCache(
  pool: DatabasePool,
  changes: ReadChanges,
  links: { period(): number },
): CommentsCache {
  const targets = new LRUCache<string, { readonly visible: boolean }, CommentPollRequest>({
    max: 20_000,
    ...keptWhileAsked,
    fetchMethod: async (_k, _s, { context: { channelId, postId } }) => ({
      visible: (await commentTarget(pool, channelId, postId)) !== null,
    }),
  });
  // Many readers' first polls at once share one query (lib/batched.ts).
  const isModerator = batched(
    (questions: readonly { readonly channelId: string; readonly userId: string }[]) =>
      areCommentModerators(pool, questions),
  );
  const moderators = new LRUCache<string, { readonly is: boolean }, CommentPollRequest>({
    max: 50_000,
    ...keptWhileAsked,
    fetchMethod: async (_k, _s, { context: { channelId, userId } }) => ({
      is: await isModerator({ channelId, userId }),
    }),
  });
  const tails = createCommentTails(pool, changes);
  const pages = new LRUCache<
    string,
    CachedPage,
    { readonly request: CommentPollRequest; readonly withHidden: boolean }
  >({
    max: 5_000,
    ...keptWhileAsked,
    fetchMethod: async (_k, _s, { context: { request, withHidden } }) => {
      const { channelId, postId, since, limit } = request;
      if (since === null) {
        const page = await latestComments(pool, postId, limit, withHidden);
        return cachedPage(page.items, page.head);
      }
      const items = await tails.changesAfter({ channelId, postId, since }, limit);
      // The cursor stays where it was when nothing changed.
      return cachedPage(items, items.at(-1)?.changeSeq ?? since);
    },
  });

  return {
    async poll(request) {
      const { channelId, postId, userId } = request;
      const targetKey = `${changes.of(scopes.channels, scopes.feed(channelId))}\n${channelId}\n${postId}`;
      const target = targets.get(targetKey) ?? (await targets.fetch(targetKey, { context: request }));
      if (!target?.visible) return null;
      const moderatorKey = `${changes.of(scopes.moderators(channelId))}\n${channelId}\n${userId}`;
      const moderator =
        moderators.get(moderatorKey) ?? (await moderators.fetch(moderatorKey, { context: request }));
      const withHidden = moderator?.is ?? false;
      const key = `${changes.of(scopes.thread(postId), scopes.moderators(channelId))}\n${postId}\n${request.since ?? ''}\n${request.limit}\n${withHidden}`;
      // A hit answers without a promise per lookup; a miss (or a load in flight) goes through fetch.
      const page = pages.get(key) ?? (await pages.fetch(key, { context: { request, withHidden } }));
      if (!page) throw new Error('comments cache: no page');
      const items = () =>
        page.rows.map((row): CommentRow | Tombstone =>
          row.status === 'visible' || (row.status === 'hidden' && withHidden)
            ? row
            : { id: row.id, status: row.status },
        );
      const kind = withHidden ? page.etags.moderator : page.etags.reader;
      const linkPeriod = links.period();
      const etag = page.hasImages ? `${kind.slice(0, -1)}.${linkPeriod}"` : kind;
      const mine = page.authors.get(userId);
      return {
        etag: mine === undefined ? etag : `${etag.slice(0, -1)}.${mine}"`,
        next: page.next,
        viewerIsModerator: withHidden,
        linkPeriod,
        items,
      };
    },
  };
}
