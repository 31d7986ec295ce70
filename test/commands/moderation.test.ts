import { describe, expect, it } from 'vitest';
import { banHolds, moderationDecider } from '../../src/commands/moderation.ts';
import type { ModerationEvent } from '../../src/events/moderation.ts';
import { specFor } from '../support/decider.ts';

const given = specFor(moderationDecider);
const at = '2026-11-23T10:00:00.000Z';
const later = '2026-11-24T10:00:00.000Z';
const by = { type: 'admin' as const, id: '0195e7a4-0000-7000-8000-0000000000ad' };
const banned = (until: string | null): ModerationEvent => ({
  type: 'userBanned',
  data: { userId: 'bob', until, reason: 'spam', by, at },
});
const assigned: ModerationEvent = { type: 'moderatorAssigned', data: { userId: 'mia', by, at } };

describe('bans', () => {
  it('ban a user, timed or until lifted; a new ban replaces the current one', () => {
    given([])
      .when({ type: 'ban', userId: 'bob', until: later, reason: 'spam', by, at })
      .then([banned(later)]);
    given([banned(later)])
      .when({ type: 'ban', userId: 'bob', until: null, reason: 'spam', by, at })
      .then([banned(null)]);
  });
  it('are lifted early while they hold; lifting one that does not hold changes nothing', () => {
    const lifted: ModerationEvent = { type: 'banLifted', data: { userId: 'bob', by, at } };
    given([banned(later)])
      .when({ type: 'liftBan', userId: 'bob', by, at })
      .then([lifted]);
    given([banned(null)])
      .when({ type: 'liftBan', userId: 'bob', by, at })
      .then([lifted]);
    given([]).when({ type: 'liftBan', userId: 'bob', by, at }).then([]);
    given([banned(later), lifted])
      .when({ type: 'liftBan', userId: 'bob', by, at })
      .then([]);
    // Expired by itself: nothing to lift.
    given([banned('2026-11-23T09:00:00.000Z')])
      .when({ type: 'liftBan', userId: 'bob', by, at })
      .then([]);
  });
  it('hold until their end, or for ever when they have none', () => {
    expect(banHolds({ until: later }, at)).toBe(true);
    expect(banHolds({ until: at }, at)).toBe(false);
    expect(banHolds({ until: null }, later)).toBe(true);
    expect(banHolds(undefined, at)).toBe(false);
  });
});

describe('comment moderators', () => {
  it('are assigned and revoked, each idempotently', () => {
    given([]).when({ type: 'assignModerator', userId: 'mia', by, at }).then([assigned]);
    given([assigned]).when({ type: 'assignModerator', userId: 'mia', by, at }).then([]);
    given([assigned])
      .when({ type: 'revokeModerator', userId: 'mia', by, at })
      .then([{ type: 'moderatorRevoked', data: { userId: 'mia', by, at } }]);
    given([]).when({ type: 'revokeModerator', userId: 'mia', by, at }).then([]);
  });
});
