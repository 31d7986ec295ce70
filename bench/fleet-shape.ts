import { envSchema } from '../src/config.ts';

/** Who the fleet's users are and what they do: shared by the seeding, the generator and the report. */

export const fleetUserId = (i: number) => `fleet-user-${i}`;

/** One user in 20 has an open support conversation (5 %); never one of the comment readers below. */
export const hasConversation = (i: number) => i % 20 === 1;
/** One user in 5 has a comment thread open. */
export const readsComments = (i: number) => i % 5 === 0;

/** Posts in the channel: more than the feed's first page (20), which is what the users poll. */
export const POSTS = 24;
/** The newest posts, whose threads the readers have open and where the writers comment. */
export const HOT_POSTS = 5;

export const POLL_ROUTES = ['unread', 'feed', 'comments', 'chat'] as const;
export type PollRoute = (typeof POLL_ROUTES)[number];

export const WRITES = ['comment', 'view', 'reaction', 'reply'] as const;
export type Write = (typeof WRITES)[number];

const defaults = envSchema.parse({});
/** Until a response says otherwise (X-Poll-Interval): the service's defaults, which the bench keeps. */
export const DEFAULT_INTERVAL_MS: Readonly<Record<PollRoute, number>> = {
  unread: defaults.POLL_CHAT_MS,
  feed: defaults.POLL_FEED_MS,
  comments: defaults.POLL_COMMENTS_MS,
  chat: defaults.POLL_CHAT_MS,
};

/** The writer mix, per second (the issue's). */
export const WRITE_RATES: Readonly<Record<Write, number>> = {
  comment: 20,
  view: 100,
  reaction: 10,
  reply: 2,
};

/** A user's slow mode: the API's default channel allows one comment per 10 s (a burst of 3). */
export const COMMENT_COOLDOWN_MS = 11_000;

/** Polls per second a fleet of `users` sends at the default intervals (before any X-Poll-Interval). */
export function nominalPollRate(users: number): number {
  let perSecond = 0;
  for (let i = 0; i < users; i++) {
    perSecond += 1000 / DEFAULT_INTERVAL_MS.unread + 1000 / DEFAULT_INTERVAL_MS.feed;
    if (readsComments(i)) perSecond += 1000 / DEFAULT_INTERVAL_MS.comments;
    if (hasConversation(i)) perSecond += 1000 / DEFAULT_INTERVAL_MS.chat;
  }
  return perSecond;
}

/** A record with one value per key, as the tables per route and per write need. */
export const perKey = <K extends string, V>(keys: readonly K[], make: (key: K) => V): Record<K, V> =>
  Object.fromEntries(keys.map((key) => [key, make(key)])) as Record<K, V>;

/** A user of the fleet as the generator gets it. */
export interface FleetUser {
  readonly id: string;
  readonly token: string;
  readonly conversationId: string | null;
}

/** What the seeding made, as the generator needs it. */
export interface FleetWorld {
  readonly channelId: string;
  /** Newest first, as the feed shows them. */
  readonly postIds: readonly string[];
  readonly users: readonly FleetUser[];
}
