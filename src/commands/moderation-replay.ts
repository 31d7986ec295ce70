import { commentDecider, type CommentState } from './comments.ts';
import { banHolds, moderationDecider, type ModerationState } from './moderation.ts';
import { COMMENTS_CATEGORY, type CommentEvent, commentCodec, commentOfStream } from '../events/comments.ts';
import type { Position, RecordedEvent } from '../events/envelope.ts';
import { moderationCodec, moderationStream } from '../events/moderation.ts';
import type { EventStore } from '../events/store/port.ts';

export interface ReplayedComment {
  readonly id: string;
  readonly postId: string;
  /** Null once the author was erased (decision 048). */
  readonly authorId: string | null;
  readonly status: 'visible' | 'hidden' | 'deleted';
  readonly createdAt: string;
  readonly reports: number;
  readonly openReports: number;
}

export interface ReplayedChannel {
  readonly channelId: string;
  readonly asOf: string;
  readonly comments: readonly ReplayedComment[];
  readonly bans: readonly {
    readonly userId: string;
    readonly until: string | null;
    /** Null once the banned user was erased (decision 048). */
    readonly reason: string | null;
  }[];
  readonly moderators: readonly string[];
}

const PAGE = 1_000;

async function* commentEvents(store: EventStore): AsyncGenerator<RecordedEvent> {
  let after: Position | null = null;
  for (;;) {
    const page = await store.readAll({ after, categories: [COMMENTS_CATEGORY], maxCount: PAGE });
    yield* page;
    const last = page.at(-1);
    if (!last || page.length < PAGE) return;
    after = last.position;
  }
}

/**
 * A channel's comments, bans and moderators as they stood at `asOf`, rebuilt from the event store alone
 * (the read tables are not consulted): every event the store recorded up to that instant, folded with the
 * same `evolve` the commands use. So an auditor sees what the moderators saw then, whatever happened to
 * the read tables or the channel's settings since.
 *
 * It reads every comment stream of the store (comments are found by the channel their first event
 * names), so it costs a scan of the comment category: fine for an audit, not for a hot path.
 */
export async function replayModeration(
  store: EventStore,
  channelId: string,
  asOf: Date,
): Promise<ReplayedChannel> {
  const until = asOf.getTime();
  const happened = (e: RecordedEvent) => e.recordedAt.getTime() <= until;

  let moderation: ModerationState = moderationDecider.initialState;
  for (const recorded of await store.readStream(moderationStream(channelId))) {
    if (happened(recorded))
      moderation = moderationDecider.evolve(moderation, moderationCodec.parse(recorded));
  }

  const comments = new Map<string, { state: CommentState; createdAt: string; reports: number }>();
  for await (const recorded of commentEvents(store)) {
    if (!happened(recorded)) continue;
    const event: CommentEvent = commentCodec.parse(recorded);
    const id = commentOfStream(recorded.streamName);
    const known = comments.get(id);
    if (!known) {
      if (event.type !== 'commentPosted' || event.data.channelId !== channelId) continue;
      // `data` is also typed as JSON, where `at` could be Array#at: read the posted shape's own field.
      const { at: createdAt }: { at: string } = event.data;
      comments.set(id, {
        state: commentDecider.evolve(commentDecider.initialState, event),
        createdAt,
        reports: 0,
      });
      continue;
    }
    known.state = commentDecider.evolve(known.state, event);
    if (event.type === 'commentReported') known.reports += 1;
  }

  const at = asOf.toISOString();
  return {
    channelId,
    asOf: at,
    comments: [...comments].map(([id, { state, createdAt, reports }]) => ({
      id,
      postId: state.postId,
      authorId: state.authorId,
      status: state.status ?? 'visible',
      createdAt,
      reports,
      openReports: state.openReports.length,
    })),
    bans: [...moderation.bans]
      .filter(([, ban]) => banHolds(ban, at))
      .map(([userId, ban]) => ({ userId, until: ban.until, reason: ban.reason }))
      .sort((a, b) => a.userId.localeCompare(b.userId)),
    moderators: [...moderation.moderators].sort(),
  };
}
