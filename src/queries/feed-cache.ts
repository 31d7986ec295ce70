import { digest } from '../lib/digest.ts';
import { batched } from '../lib/batched.ts';
import { keptWhileAsked } from '../lib/kept-while-asked.ts';
import { LRUCache } from 'lru-cache';
import type { DatabasePool } from '../db/pool.ts';
import type { ReadChanges } from '../projections/changes.ts';
import { scopes } from '../projections/scopes.ts';
import {
  asSeenBy,
  type FeedPost,
  type PostMediaUrl,
  publishedPost,
  publishedPosts,
  reactionsOfUsers,
  type SharedPage,
  type SharedPost,
} from './feed.ts';

export interface FeedPageRequest {
  readonly channelId: string;
  readonly userId: string;
  readonly limit: number;
  /** `<publishedAt>|<id>`: the page after that post. */
  readonly before: string | null;
}

export interface FeedPageAnswer {
  /** An entity tag over everything this user would get, known without building the page. */
  readonly etag: string;
  /** `<publishedAt>|<id>` of the last item when there may be more. */
  readonly before: string | null;
  /** The posts as this user sees them: a JSON array of API.md's `Post`, UTF-8. */
  itemsJson(): Buffer;
}

export interface FeedCache {
  page(request: FeedPageRequest): Promise<FeedPageAnswer>;
  /** One published post as this user sees it; null unless it is published in that channel. */
  post(request: {
    readonly channelId: string;
    readonly postId: string;
    readonly userId: string;
  }): Promise<FeedPost | null>;
}

/**
 * Signed links to post media (decision 033), minted per period: every answer made in one period holds
 * the same links, and a link handed out still works for at least the links' lifetime.
 */
export interface PostMediaLinks {
  period(): number;
  postMedia(period: number, media: Parameters<PostMediaUrl>[0]): string;
}

interface CachedPage extends SharedPage {
  readonly hash: string;
  /** Which posts the page holds, whatever their contents. */
  readonly ids: string;
  /** Whether any post has media: only then does the page change with the period of media links. */
  readonly hasMedia: boolean;
  /**
   * Each post serialised once per period of media links (once, when it has none), around the place
   * where the reader's own reactions go.
   */
  signed: { readonly period: number; readonly serialised: readonly Serialised[] } | null;
}
interface CachedMine {
  readonly mine: ReadonlyMap<string, readonly string[]>;
  readonly hash: string;
}

export interface Serialised {
  readonly id: string;
  readonly head: Buffer;
  readonly tail: Buffer;
}

/**
 * A post as UTF-8 JSON in two halves, so that `head + JSON.stringify(mine) + tail` is
 * `asSeenBy(post, mine, mediaUrl)` serialised: a 200 then costs a copy of bytes encoded once, not a serialisation
 * and encoding of the whole page per reader.
 */
export function serialisedAround(post: SharedPost, mediaUrl: PostMediaUrl): Serialised {
  const { reactions, viewCount, commentCount, commentsEnabled, ...head } = asSeenBy(post, [], mediaUrl);
  const tail = JSON.stringify({ viewCount, commentCount, commentsEnabled });
  const counts = JSON.stringify(reactions.counts);
  return {
    id: post.id,
    head: Buffer.from(`${JSON.stringify(head).slice(0, -1)},"reactions":{"counts":${counts},"mine":`),
    tail: Buffer.from(`},${tail.slice(1)}`),
  };
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/**
 * Feed polls are the hottest read of the service: every client asks every few seconds, and nearly
 * always nothing changed. So a page is read once per change of its channel (and shared by every user),
 * a user's own reactions on it once per change of theirs, and a poll that changes nothing costs two map
 * lookups, no SQL and no serialisation. Keys carry the scopes' stamps (`ReadChanges`), so nothing is
 * invalidated by hand: old entries stop being asked for and age out. The counters move with every view
 * and reaction, so a page follows them at most every `countsLagMs` (`FEED_COUNTS_LAG_MS`): on a busy channel, a page
 * read per channel every few seconds instead of one per view, and polls that stay 304 in between.
 * Media links are signed per period (`media`): a page with media is serialised again, and its tag
 * changes, once per period, with no read.
 */
export function createFeedCache(
  pool: DatabasePool,
  changes: ReadChanges,
  options: { readonly countsLagMs: number; readonly media: PostMediaLinks },
): FeedCache {
  const { media } = options;
  const linksOf = (period: number): PostMediaUrl => {
    return (m) => media.postMedia(period, m);
  };
  /** The period a page's links are minted for now: 0 for good when it has no media. */
  const periodOf = (page: CachedPage) => (page.hasMedia ? media.period() : 0);
  const serialisedFor = (page: CachedPage, period: number): readonly Serialised[] => {
    if (page.signed?.period === period) return page.signed.serialised;
    const serialised = page.items.map((post) => serialisedAround(post, linksOf(period)));
    page.signed = { period, serialised };
    return serialised;
  };
  const pages = new LRUCache<string, CachedPage, FeedPageRequest>({
    max: 500,
    ...keptWhileAsked,
    fetchMethod: async (_key, _stale, { context: { channelId, limit, before } }) => {
      const [publishedAt = '', id = ''] = before?.split('|') ?? [];
      const page = await publishedPosts(pool, channelId, limit, before ? { publishedAt, id } : null);
      return {
        ...page,
        hash: digest(JSON.stringify(page)),
        ids: digest(page.items.map((p) => p.id).join()),
        hasMedia: page.items.some((p) => p.attachments.length > 0),
        signed: null,
      };
    },
  });
  // Many users' first polls at once share one query (lib/batched.ts).
  const own = batched(
    (questions: readonly { readonly userId: string; readonly postIds: readonly string[] }[]) =>
      reactionsOfUsers(pool, questions),
  );
  const mine = new LRUCache<string, CachedMine, { readonly userId: string; readonly page: CachedPage }>({
    max: 50_000,
    ...keptWhileAsked,
    fetchMethod: async (_key, _stale, { context: { userId, page } }) => {
      const found = await own({ userId, postIds: page.items.map((p) => p.id) });
      return { mine: found, hash: digest(JSON.stringify(page.items.map((p) => found.get(p.id) ?? []))) };
    },
  });

  const posts = new LRUCache<
    string,
    { readonly post: SharedPost | null },
    { channelId: string; postId: string }
  >({
    max: 20_000,
    ...keptWhileAsked,
    fetchMethod: async (_key, _stale, { context: { channelId, postId } }) => ({
      post: await publishedPost(pool, channelId, postId),
    }),
  });
  const ownOfPost = new LRUCache<string, readonly string[], { userId: string; postId: string }>({
    max: 50_000,
    ...keptWhileAsked,
    fetchMethod: async (_key, _stale, { context: { userId, postId } }) =>
      (await own({ userId, postIds: [postId] })).get(postId) ?? [],
  });
  /** The version of what every reader of a channel's posts sees: posts, settings, and (late) counters. */
  const channelVersion = (channelId: string) =>
    `${changes.of(scopes.channels, scopes.feed(channelId))}|${changes.lagging(scopes.counts(channelId), options.countsLagMs)}`;

  return {
    async page(request) {
      const { channelId, userId } = request;
      const pageKey = `${channelVersion(channelId)}\n${channelId}\n${request.limit}\n${request.before ?? ''}`;
      const page = pages.get(pageKey) ?? (await pages.fetch(pageKey, { context: request }));
      if (!page) throw new Error('feed cache: no page');
      const ownKey = `${changes.of(scopes.reactionsOf(userId))}\n${page.ids}\n${userId}`;
      const own = mine.get(ownKey) ?? (await mine.fetch(ownKey, { context: { userId, page } }));
      if (!own) throw new Error('feed cache: no reactions');
      // One period for the tag and the body, so the tag names exactly the links the body holds.
      const period = periodOf(page);
      return {
        etag: `W/"${page.hash}${page.hasMedia ? `.${period}` : ''}.${own.hash}"`,
        before: page.before,
        itemsJson: () =>
          Buffer.concat([
            OPEN,
            ...serialisedFor(page, period).flatMap((p, i) => [
              ...(i === 0 ? [] : [COMMA]),
              p.head,
              Buffer.from(JSON.stringify(own.mine.get(p.id) ?? [])),
              p.tail,
            ]),
            CLOSE,
          ]),
      };
    },
    async post({ channelId, postId, userId }) {
      const postKey = `${channelVersion(channelId)}\n${postId}`;
      const shared = posts.get(postKey) ?? (await posts.fetch(postKey, { context: { channelId, postId } }));
      if (!shared?.post) return null;
      const ownKey = `${changes.of(scopes.reactionsOf(userId))}\n${postId}\n${userId}`;
      const own = ownOfPost.get(ownKey) ?? (await ownOfPost.fetch(ownKey, { context: { userId, postId } }));
      return asSeenBy(shared.post, own ?? [], linksOf(media.period()));
    },
  };
}
