import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Position } from '../../src/events/envelope.ts';
import { createLogger } from '../../src/http/logger.ts';
import { type ChangeFeed, createChangeFeed } from '../../src/projections/changes.ts';
import { useTestDatabase } from '../support/database.ts';
import { waitUntil } from '../support/eventually.ts';
import { replicaChangeFeed } from '../support/replica.ts';

const logger = createLogger('silent');
const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });

/** A feed of this process only, on a clock the test moves. */
function localFeed() {
  let clock = 1_000_000;
  const feed = createChangeFeed({ logger, now: () => clock });
  return { feed, tick: (ms: number) => (clock += ms) };
}

describe('the change feed: stamps in memory', () => {
  it('moves the token of a scope a batch changed, and no other', () => {
    const { feed } = localFeed();
    const [a, b, both] = [feed.of('feed:a'), feed.of('feed:b'), feed.of('feed:a', 'feed:b')];
    feed.announce('posts', at(1), ['feed:a']);
    expect(feed.of('feed:a')).not.toBe(a);
    expect(feed.of('feed:b')).toBe(b);
    expect(feed.of('feed:a', 'feed:b')).not.toBe(both);
    // A batch that changed nothing clients read moves nothing.
    const now = feed.of('feed:a', 'feed:b');
    feed.announce('devices', at(2), []);
    expect(feed.of('feed:a', 'feed:b')).toBe(now);
    // Nothing can be trusted after a reload: every token moves.
    feed.announce('posts', at(2), null);
    expect(feed.of('feed:b')).not.toBe(b);
  });

  it('never gives one token twice: a scope moved, then the epoch renewed, does not come back to an old token', () => {
    const { feed } = localFeed();
    const seen = new Set<string>([feed.of('s')]);
    for (let i = 0; i < 20; i += 1) {
      feed.announce('p', at(i), i % 5 === 0 ? null : ['s']);
      const token = feed.of('s');
      expect(seen.has(token)).toBe(false);
      seen.add(token);
    }
  });

  it('lets a lagging scope move at most once per period of the wall clock', () => {
    // The clock starts a 5-second period.
    const { feed, tick } = localFeed();
    const first = feed.lagging('counts:c', 5_000);
    feed.announce('posts', at(1), ['counts:c']);
    tick(1_000);
    expect(feed.lagging('counts:c', 5_000)).toBe(first);
    tick(4_000);
    const moved = feed.lagging('counts:c', 5_000);
    expect(moved).not.toBe(first);
    // More changes within a period wait for its end, then show together.
    feed.announce('posts', at(2), ['counts:c']);
    tick(2_000);
    expect(feed.lagging('counts:c', 5_000)).toBe(moved);
    feed.announce('posts', at(3), ['counts:c']);
    tick(2_999);
    expect(feed.lagging('counts:c', 5_000)).toBe(moved);
    tick(1);
    expect(feed.lagging('counts:c', 5_000)).not.toBe(moved);
  });

  it('moves a lagging scope at the same instants on every replica, whenever each heard the change', () => {
    let clock = 1_000_000;
    const [a, b] = [0, 1].map(() => createChangeFeed({ logger, now: () => clock }));
    if (!a || !b) throw new Error('two feeds');
    const before = [a.lagging('counts:c', 5_000), b.lagging('counts:c', 5_000)];
    a.announce('posts', at(1), ['counts:c']);
    clock += 1_500;
    b.announce('posts', at(1), ['counts:c']);
    clock += 3_000;
    // Still the same period: neither shows it yet, so a client bouncing between them sees no step back.
    expect([a.lagging('counts:c', 5_000), b.lagging('counts:c', 5_000)]).toEqual(before);
    clock += 500;
    const after = [a.lagging('counts:c', 5_000), b.lagging('counts:c', 5_000)];
    expect(after[0]).not.toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
  });

  it('knows where each projection has been heard, taking a reload as it comes', () => {
    const { feed } = localFeed();
    expect(feed.heard('posts')).toBeNull();
    feed.announce('posts', at(5), ['feed:a']);
    feed.announce('posts', at(3), ['feed:a']);
    expect(feed.heard('posts')).toEqual(at(5));
    // A development reset starts the log again: the reload's position is taken as it is.
    feed.announce('posts', at(1), null);
    expect(feed.heard('posts')).toEqual(at(1));
  });
});

describe('the change feed: between replicas', () => {
  const db = useTestDatabase();

  async function replicas(count: number): Promise<ChangeFeed[]> {
    const feeds = Array.from({ length: count }, () => replicaChangeFeed(db.url, logger));
    await waitUntil(() => feeds.every((f) => f.listening()));
    return feeds;
  }

  it("moves another replica's stamps, and where it has heard the projection", async () => {
    const [here, there] = await replicas(2);
    if (!here || !there) throw new Error('two feeds');
    try {
      const [a, b] = [there.of('thread:a'), there.of('thread:b')];
      here.announce('comments', at(7), ['thread:a']);
      await waitUntil(() => there.of('thread:a') !== a);
      expect(there.of('thread:b')).toBe(b);
      expect(there.heard('comments')).toEqual(at(7));
    } finally {
      await Promise.all([here.close(), there.close()]);
    }
  });

  it('takes a change too long for one notification, or one it cannot read, as "everything changed"', async () => {
    const [here, there] = await replicas(2);
    if (!here || !there) throw new Error('two feeds');
    const raw = new pg.Client({ connectionString: db.url });
    await raw.connect();
    try {
      let before = there.of('thread:z');
      const many = Array.from({ length: 400 }, (_, i) => `thread:${String(i).padStart(36, '0')}`);
      here.announce('comments', at(1), many);
      await waitUntil(() => there.of('thread:z') !== before);

      before = there.of('thread:z');
      await raw.query(`SELECT pg_notify('read_changes', 'not json')`);
      await waitUntil(() => there.of('thread:z') !== before);
    } finally {
      await raw.end();
      await Promise.all([here.close(), there.close()]);
    }
  });

  it('trusts its tokens for at most a second while it hears nothing, and renews them when it hears again', async () => {
    let clock = 0;
    const feed = replicaChangeFeed(db.url, logger, () => clock);
    try {
      // Not connected yet: nothing from elsewhere is heard, so a token lives for a second at most.
      const early = feed.of('feed:a');
      expect(feed.of('feed:a')).toBe(early);
      clock += 1_000;
      const later = feed.of('feed:a');
      expect(later).not.toBe(early);
      // Connecting renews every token: what changed while nobody listened is unknown.
      await waitUntil(() => feed.listening());
      const heard = feed.of('feed:a');
      expect(heard).not.toBe(later);
      clock += 60_000;
      expect(feed.of('feed:a')).toBe(heard);
    } finally {
      await feed.close();
    }
  });
});
