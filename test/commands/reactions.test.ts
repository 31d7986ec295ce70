import { describe, it } from 'vitest';
import { type ReactionCommand, reactionsDecider } from '../../src/commands/reactions.ts';
import type { ReactionEvent } from '../../src/events/reactions.ts';
import { specFor } from '../support/decider.ts';

// One user's stream: the (post, emoji) pairs they reacted with.
const given = specFor(reactionsDecider);
const T0 = '2026-11-23T10:00:00.000Z';
const T1 = '2026-11-23T11:00:00.000Z';
const channelId = '0195e7a4-0000-7000-8000-0000000000aa';
const postId = '0195e7a4-0000-7000-8000-0000000000bb';
const otherPostId = '0195e7a4-0000-7000-8000-0000000000cc';

/** What a command is about, and the read side's facts; by default 👍 on a visible post of a channel taking 👍 and ❤️. */
type About = Partial<Pick<ReactionCommand, 'postId' | 'emoji' | 'postVisible' | 'allowedEmoji'>>;
const add = (about: About = {}): ReactionCommand => ({
  type: 'add',
  channelId,
  postId,
  emoji: '👍',
  at: T1,
  postVisible: true,
  allowedEmoji: ['👍', '❤️'],
  ...about,
});
const remove = (about: About = {}): ReactionCommand => ({ ...add(about), type: 'remove' });

type Reaction = Partial<Pick<ReactionEvent['data'], 'postId' | 'emoji' | 'at'>>;
const added = (reaction: Reaction = {}): ReactionEvent => ({
  type: 'reactionAdded',
  data: { channelId, postId, emoji: '👍', at: T1, ...reaction },
});
const removed = (reaction: Reaction = {}): ReactionEvent => ({
  type: 'reactionRemoved',
  data: { channelId, postId, emoji: '👍', at: T1, ...reaction },
});
// Earlier events of the stream.
const held = (reaction: Reaction = {}) => added({ at: T0, ...reaction });
const dropped = (reaction: Reaction = {}) => removed({ at: T0, ...reaction });

describe('adding a reaction', () => {
  it('appends reactionAdded, naming the channel, post, emoji and instant', () => {
    given([]).when(add()).then([added()]);
  });
  it('again changes nothing', () => {
    given([held()]).when(add()).then([]);
  });
  it('after it was removed adds it again', () => {
    given([held(), dropped()]).when(add()).then([added()]);
  });
  it('is refused for an emoji the channel does not take (403 reaction_not_allowed), even one it holds already', () => {
    given([])
      .when(add({ emoji: '🔥' }))
      .thenRefuses('forbidden', { code: 'reaction_not_allowed', message: /does not take/ });
    given([held({ emoji: '🔥' })])
      .when(add({ emoji: '🔥' }))
      .thenRefuses('forbidden', { code: 'reaction_not_allowed' });
    given([])
      .when(add({ allowedEmoji: [] }))
      .thenRefuses('forbidden', { code: 'reaction_not_allowed' });
  });
  it('is refused on a post clients cannot see (404), checked before the emoji, even for one it holds already', () => {
    given([])
      .when(add({ postVisible: false }))
      .thenRefuses('not_found', { code: 'not_found' });
    given([])
      .when(add({ postVisible: false, emoji: '🔥' }))
      .thenRefuses('not_found');
    given([held()])
      .when(add({ postVisible: false }))
      .thenRefuses('not_found');
  });
});

describe('removing a reaction', () => {
  it('appends reactionRemoved', () => {
    given([held()]).when(remove()).then([removed()]);
  });
  it('that is not there changes nothing: never added, or removed already', () => {
    given([]).when(remove()).then([]);
    given([held(), dropped()]).when(remove()).then([]);
  });
  it('works on a post clients cannot see, and with an emoji the channel no longer takes', () => {
    given([held()])
      .when(remove({ postVisible: false }))
      .then([removed()]);
    given([held({ emoji: '🔥' })])
      .when(remove({ emoji: '🔥' }))
      .then([removed({ emoji: '🔥' })]);
  });
  it('that is not there changes nothing, with no refusal: on a post clients cannot see, or of an emoji the channel does not take', () => {
    given([])
      .when(remove({ postVisible: false }))
      .then([]);
    given([])
      .when(remove({ emoji: '🔥' }))
      .then([]);
  });
});

describe('reactions on different posts or with different emoji', () => {
  it('are independent when added', () => {
    given([held()])
      .when(add({ postId: otherPostId }))
      .then([added({ postId: otherPostId })]);
    given([held()])
      .when(add({ emoji: '❤️' }))
      .then([added({ emoji: '❤️' })]);
    given([held(), held({ emoji: '❤️' }), held({ postId: otherPostId })])
      .when(add())
      .then([]);
  });
  it('are independent when removed', () => {
    given([held()])
      .when(remove({ postId: otherPostId }))
      .then([]);
    given([held()])
      .when(remove({ emoji: '❤️' }))
      .then([]);
    given([held(), held({ emoji: '❤️' }), held({ postId: otherPostId })])
      .when(remove({ emoji: '❤️' }))
      .then([removed({ emoji: '❤️' })]);
  });
  it('stay when another one is removed', () => {
    const others = [held({ emoji: '❤️' }), held({ postId: otherPostId })];
    given([held(), ...others, dropped()])
      .when(add())
      .then([added()]);
    given([held(), ...others, dropped()])
      .when(add({ emoji: '❤️' }))
      .then([]);
    given([held(), ...others, dropped()])
      .when(add({ postId: otherPostId }))
      .then([]);
  });
});
