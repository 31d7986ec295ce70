import { digest } from '../lib/digest.ts';
import { LRUCache } from 'lru-cache';
import type { DatabasePool } from '../db/pool.ts';
import type { ReadVersions } from '../projections/read-version.ts';
import { asSeenBy, publishedPosts, reactionsOf, type SharedPage, type SharedPost } from './feed.ts';

// The projections whose tables make up a feed page: posts (with their parts and views), reactions, and
// comments (their counts). A user's own reactions depend on reactions only, so the stream of views moving
// the posts' counts does not make every reader's reactions be read again.
const POSTS = 'posts';
const REACTIONS = 'reactions';
const COMMENTS = 'comments';
const FEED_PROJECTIONS = [POSTS, REACTIONS, COMMENTS];

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
}

interface CachedPage extends SharedPage {
  readonly hash: string;
  /** Which posts the page holds, whatever their contents. */
  readonly ids: string;
  /** Each post serialised once, around the place where the reader's own reactions go. */
  readonly serialised: readonly Serialised[];
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
 * `asSeenBy(post, mine)` serialised: a 200 then costs a copy of bytes encoded once, not a serialisation
 * and encoding of the whole page per reader.
 */
export function serialisedAround(post: SharedPost): Serialised {
  const { reactions, viewCount, commentCount, commentsEnabled, ...head } = asSeenBy(post, []);
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
 * always nothing changed. So a page is read once per change of the feed's projections (and shared by
 * every user and every replica's concurrent misses), a user's own reactions on it once per change too,
 * and a poll that changes nothing costs one shared checkpoint read (see `ReadVersions`), two map
 * lookups and no serialisation. Keys carry the read version, so nothing is ever invalidated by hand:
 * old entries simply stop being asked for and age out.
 */
export function createFeedCache(pool: DatabasePool, versions: ReadVersions): FeedCache {
  const pages = new LRUCache<string, CachedPage, FeedPageRequest>({
    max: 2_000,
    ttl: 60_000,
    fetchMethod: async (_key, _stale, { context: { channelId, limit, before } }) => {
      const [publishedAt = '', id = ''] = before?.split('|') ?? [];
      const page = await publishedPosts(pool, channelId, limit, before ? { publishedAt, id } : null);
      return {
        ...page,
        hash: digest(JSON.stringify(page)),
        ids: digest(page.items.map((p) => p.id).join()),
        serialised: page.items.map(serialisedAround),
      };
    },
  });
  const mine = new LRUCache<string, CachedMine, { readonly userId: string; readonly page: CachedPage }>({
    max: 50_000,
    ttl: 60_000,
    fetchMethod: async (_key, _stale, { context: { userId, page } }) => {
      const own = await reactionsOf(
        pool,
        userId,
        page.items.map((p) => p.id),
      );
      return { mine: own, hash: digest(JSON.stringify(page.items.map((p) => own.get(p.id) ?? []))) };
    },
  });

  return {
    async page(request) {
      const version = await versions.fresh(FEED_PROJECTIONS);
      const where = `${request.channelId}\n${request.limit}\n${request.before ?? ''}`;
      const page = await pages.fetch(`${version.of(POSTS, REACTIONS, COMMENTS)}\n${where}`, {
        context: request,
      });
      if (!page) throw new Error('feed cache: no page');
      const own = await mine.fetch(`${version.of(REACTIONS)}\n${page.ids}\n${request.userId}`, {
        context: { userId: request.userId, page },
      });
      if (!own) throw new Error('feed cache: no reactions');
      return {
        etag: `W/"${page.hash}.${own.hash}"`,
        before: page.before,
        itemsJson: () =>
          Buffer.concat([
            OPEN,
            ...page.serialised.flatMap((p, i) => [
              ...(i === 0 ? [] : [COMMA]),
              p.head,
              Buffer.from(JSON.stringify(own.mine.get(p.id) ?? [])),
              p.tail,
            ]),
            CLOSE,
          ]),
      };
    },
  };
}
