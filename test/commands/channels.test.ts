import { describe, expect, it } from 'vitest';
import { channelDecider } from '../../src/commands/channels.ts';
import {
  type ChannelEvent,
  type ChannelSettings,
  channelCreated,
  DEFAULT_AUTO_HIDE_REPORTS,
  emojiSchema,
} from '../../src/events/channels.ts';
import { specFor } from '../support/decider.ts';

const given = specFor(channelDecider);
const T0 = '2026-11-22T10:00:00.000Z';
const T1 = '2026-11-22T11:00:00.000Z';
const settings: ChannelSettings = {
  title: 'News',
  description: 'What is new',
  avatarUrl: null,
  allowedReactions: ['👍', '❤️'],
  commentsEnabled: true,
  commentRate: { intervalSeconds: 10, burst: 3 },
  autoHideReports: 3,
};
const created: ChannelEvent = { type: 'channelCreated', data: { ...settings, at: T0 } };

describe('channel decider', () => {
  it('creates a channel once', () => {
    given([]).when({ type: 'create', settings, at: T0 }).then([created]);
    given([created])
      .when({ type: 'create', settings, at: T1 })
      .thenRefuses('invalid_transition', { message: /exists/ });
  });

  it('records only what an edit changes, and nothing when nothing does', () => {
    given([created])
      .when({
        type: 'edit',
        change: {
          title: 'News',
          description: 'Now with more',
          commentRate: { intervalSeconds: 10, burst: 3 },
        },
        at: T1,
      })
      .then([{ type: 'channelEdited', data: { description: 'Now with more', at: T1 } }]);
    given([created])
      .when({ type: 'edit', change: { allowedReactions: ['👍', '❤️'] }, at: T1 })
      .then([]);
    given([created])
      .when({ type: 'edit', change: { allowedReactions: ['🔥'], commentsEnabled: false }, at: T1 })
      .then([{ type: 'channelEdited', data: { allowedReactions: ['🔥'], commentsEnabled: false, at: T1 } }]);
  });

  it('folds edits over the created settings', () => {
    const edited: ChannelEvent = { type: 'channelEdited', data: { title: 'Updates', at: T1 } };
    given([created, edited])
      .when({ type: 'edit', change: { title: 'Updates' }, at: T1 })
      .then([]);
  });

  it('refuses to edit a channel that does not exist', () => {
    given([])
      .when({ type: 'edit', change: { title: 'X' }, at: T1 })
      .thenRefuses('not_found');
  });
});

describe('reaction emoji', () => {
  it.each(['👍', '❤️', '🔥', '👍🏽', '👨‍👩‍👧', '🏳️‍🌈'])('accepts %s', (emoji) => {
    expect(emojiSchema.safeParse(emoji).success).toBe(true);
  });
  it.each(['a', ':+1:', '👍👍', '👍👍x', '', ' 👍', '<script>'])('refuses %j', (text) => {
    expect(emojiSchema.safeParse(text).success).toBe(false);
  });
});

describe('channel events recorded before the report rule', () => {
  it('read as having its default threshold', () => {
    const before: Record<string, unknown> = { ...settings, at: T0 };
    delete before.autoHideReports;
    const parsed = channelCreated.shape.data.parse(before);
    expect(parsed.autoHideReports).toBe(DEFAULT_AUTO_HIDE_REPORTS);
  });
});
