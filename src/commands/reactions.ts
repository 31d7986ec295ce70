import type { Position } from '../events/envelope.ts';
import { type ReactionEvent, reactionCodec, reactionsStream } from '../events/reactions.ts';
import type { EventStore } from '../events/store/port.ts';
import { forbidden, notFound } from '../lib/domain-error.ts';
import { type CommandContext, type Decider, handleCommand } from './handler.ts';

/** The (post, emoji) pairs a user reacted with. */
export interface ReactionsState {
  readonly held: ReadonlySet<string>;
}

export type ReactionCommand = {
  readonly type: 'add' | 'remove';
  readonly channelId: string;
  readonly postId: string;
  readonly emoji: string;
  readonly at: string;
  /** From the read side: whether clients can see the post, and the channel's reactions. */
  readonly postVisible: boolean;
  readonly allowedEmoji: readonly string[];
};

const pair = (postId: string, emoji: string) => `${postId} ${emoji}`;

/** One reaction per (user, post, emoji); adding and removing are idempotent (a repeat changes nothing). */
export const reactionsDecider: Decider<ReactionCommand, ReactionsState, ReactionEvent> = {
  initialState: { held: new Set() },
  evolve(state, event) {
    const held = new Set(state.held);
    const key = pair(event.data.postId, event.data.emoji);
    if (event.type === 'reactionAdded') held.add(key);
    else held.delete(key);
    return { held };
  },
  decide(command, state) {
    const { channelId, postId, emoji, at } = command;
    const has = state.held.has(pair(postId, emoji));
    if (command.type === 'remove')
      return has ? [{ type: 'reactionRemoved', data: { channelId, postId, emoji, at } }] : [];
    if (!command.postVisible) throw notFound('No such post.');
    if (!command.allowedEmoji.includes(emoji))
      throw forbidden('This channel does not take that reaction.', 'reaction_not_allowed');
    return has ? [] : [{ type: 'reactionAdded', data: { channelId, postId, emoji, at } }];
  },
};

export async function react(
  store: EventStore,
  userId: string,
  command: ReactionCommand,
  context: CommandContext,
): Promise<{ readonly position: Position | null }> {
  const result = await handleCommand({
    store,
    stream: reactionsStream(userId),
    decider: reactionsDecider,
    codec: reactionCodec,
    command,
    context,
  });
  return { position: result.position };
}
