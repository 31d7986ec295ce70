import type { ModeratorRef } from '../events/comments.ts';
import type { Position } from '../events/envelope.ts';
import {
  type CommentRejected,
  type ModerationEvent,
  moderationCodec,
  moderationStream,
} from '../events/moderation.ts';
import type { EventStore } from '../events/store/port.ts';
import { appendEvents, type CommandContext, type Decider, handleCommand } from './handler.ts';

export interface ModerationState {
  /** Bans by user: `until` null lasts until lifted. An expired ban stays here but no longer counts. */
  /** By user; a reason erased with its user (decision 048) is null. */
  readonly bans: ReadonlyMap<string, { readonly until: string | null; readonly reason: string | null }>;
  readonly moderators: ReadonlySet<string>;
}

export type ModerationCommand =
  | {
      readonly type: 'ban';
      readonly userId: string;
      readonly until: string | null;
      readonly reason: string;
      readonly by: ModeratorRef;
      readonly at: string;
    }
  | { readonly type: 'liftBan'; readonly userId: string; readonly by: ModeratorRef; readonly at: string }
  | {
      readonly type: 'assignModerator';
      readonly userId: string;
      readonly by: ModeratorRef;
      readonly at: string;
    }
  | {
      readonly type: 'revokeModerator';
      readonly userId: string;
      readonly by: ModeratorRef;
      readonly at: string;
    };

/** Whether a ban holds at `at` (ISO instants of one format compare as strings would not: use Date). */
export const banHolds = (ban: { readonly until: string | null } | undefined, at: string): boolean =>
  ban !== undefined && (ban.until === null || Date.parse(ban.until) > Date.parse(at));

export const initialModerationState: ModerationState = { bans: new Map(), moderators: new Set() };

function evolve(state: ModerationState, event: ModerationEvent): ModerationState {
  switch (event.type) {
    case 'userBanned':
      return {
        ...state,
        bans: new Map(state.bans).set(event.data.userId, {
          until: event.data.until,
          reason: event.data.reason,
        }),
      };
    case 'banLifted': {
      const bans = new Map(state.bans);
      bans.delete(event.data.userId);
      return { ...state, bans };
    }
    case 'moderatorAssigned':
      return { ...state, moderators: new Set(state.moderators).add(event.data.userId) };
    case 'moderatorRevoked': {
      const moderators = new Set(state.moderators);
      moderators.delete(event.data.userId);
      return { ...state, moderators };
    }
    case 'commentRejected':
      return state;
  }
}

/**
 * A channel's comment moderation: bans (a new ban replaces the user's current one; lifting a ban that
 * does not hold changes nothing) and comment moderators (assigning and revoking are idempotent).
 */
export const moderationDecider: Decider<ModerationCommand, ModerationState, ModerationEvent> = {
  initialState: initialModerationState,
  evolve,
  decide(command, state) {
    const { userId, by, at } = command;
    switch (command.type) {
      case 'ban':
        return [
          { type: 'userBanned', data: { userId, until: command.until, reason: command.reason, by, at } },
        ];
      case 'liftBan':
        return banHolds(state.bans.get(userId), at) ? [{ type: 'banLifted', data: { userId, by, at } }] : [];
      case 'assignModerator':
        return state.moderators.has(userId) ? [] : [{ type: 'moderatorAssigned', data: { userId, by, at } }];
      case 'revokeModerator':
        return state.moderators.has(userId) ? [{ type: 'moderatorRevoked', data: { userId, by, at } }] : [];
    }
  },
};

export async function moderate(
  store: EventStore,
  channelId: string,
  command: ModerationCommand,
  context: CommandContext,
): Promise<{ readonly position: Position | null; readonly changed: boolean }> {
  const result = await handleCommand({
    store,
    stream: moderationStream(channelId),
    decider: moderationDecider,
    codec: moderationCodec,
    command,
    context,
  });
  return { position: result.position, changed: result.events.length > 0 };
}

/**
 * Records a comment the content rules refused. No decision is involved, so it is appended without a
 * revision check: a burst of rejections never contends with a moderator banning someone.
 */
export async function recordRejection(
  store: EventStore,
  channelId: string,
  data: CommentRejected['data'],
  context: CommandContext,
): Promise<Position> {
  const rejected: CommentRejected = { type: 'commentRejected', data };
  const result = await appendEvents(store, moderationStream(channelId), [rejected], {
    context,
    codec: moderationCodec,
    expected: 'any',
    occurredAt: data.at,
  });
  return result.position;
}
