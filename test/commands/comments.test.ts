import { describe, expect, it } from 'vitest';
import {
  type CommentCommand,
  commentDecider,
  decideNewComment,
  withImage,
} from '../../src/commands/comments.ts';
import type { CommentEvent } from '../../src/events/comments.ts';
import { specFor } from '../support/decider.ts';

const given = specFor(commentDecider);
const at = '2026-11-23T10:00:00.000Z';
const channelId = '0195e7a4-0000-7000-8000-0000000000aa';
const postId = '0195e7a4-0000-7000-8000-0000000000bb';
const reportId = (n: number) => `0195e7a4-0000-7000-8000-0000000000${String(n).padStart(2, '0')}`;
const mod = { type: 'moderator' as const, id: 'mia' };
const admin = { type: 'admin' as const, id: '0195e7a4-0000-7000-8000-0000000000ad' };

const post: Extract<CommentCommand, { type: 'post' }> = {
  type: 'post',
  channelId,
  postId,
  authorId: 'ann',
  text: 'hello',
  at,
  postVisible: true,
  commentsEnabled: true,
  ban: null,
};
const postedData = { channelId, postId, authorId: 'ann', text: 'hello', at };
const posted: CommentEvent = { type: 'commentPosted', data: postedData };
const hidden: CommentEvent = { type: 'commentHidden', data: { by: mod, at } };
const deleted: CommentEvent = { type: 'commentDeleted', data: { by: admin, previousStatus: 'visible', at } };
const reported = (n: number, reporterId = `r${n}`): CommentEvent => ({
  type: 'commentReported',
  data: { reportId: reportId(n), reporterId, reason: 'spam', at },
});
const report = (n: number, reporterId = `r${n}`, autoHideThreshold = 3): CommentCommand => ({
  type: 'report',
  reportId: reportId(n),
  reporterId,
  reason: 'spam',
  autoHideThreshold,
  at,
});

describe('posting a comment', () => {
  it('is posted while the post is visible, comments are open and the author is not banned', () => {
    given([]).when(post).then([posted]);
  });
  it('is decided once, on the empty stream a new comment starts, and carries its picture once stored', () => {
    const image = { storageKey: 'comments/x', contentType: 'image/png', size: 10, width: 2, height: 3 };
    expect(decideNewComment(post)).toEqual(posted);
    expect(withImage(decideNewComment(post), image)).toEqual({
      type: 'commentPosted',
      data: { ...postedData, image },
    });
  });
  it('is refused on a post clients cannot see (404)', () => {
    given([])
      .when({ ...post, postVisible: false })
      .thenRefuses('not_found');
  });
  it('is refused when comments are closed (403 comments_closed)', () => {
    given([])
      .when({ ...post, commentsEnabled: false })
      .thenRefuses('forbidden', { code: 'comments_closed' });
  });
  it.each([['2026-11-24T00:00:00.000Z'], [null]])(
    'is refused to a banned author, saying until %s',
    (until) => {
      given([])
        .when({ ...post, ban: { until } })
        .thenRefuses('forbidden', { code: 'user_banned', extensions: { until } });
    },
  );
  it('cannot be posted twice into one stream', () => {
    given([posted]).when(post).thenRefuses('invalid_transition');
  });
});

describe("the author's delete", () => {
  it('deletes a visible or hidden comment, saying which it was', () => {
    given([posted])
      .when({ type: 'deleteOwn', userId: 'ann', at })
      .then([{ type: 'commentDeletedByAuthor', data: { previousStatus: 'visible', at } }]);
    given([posted, hidden])
      .when({ type: 'deleteOwn', userId: 'ann', at })
      .then([{ type: 'commentDeletedByAuthor', data: { previousStatus: 'hidden', at } }]);
  });
  it('is a no-op when already deleted', () => {
    given([posted, deleted]).when({ type: 'deleteOwn', userId: 'ann', at }).then([]);
  });
  it("is refused for someone else's comment (403) and for no comment (404)", () => {
    given([posted]).when({ type: 'deleteOwn', userId: 'bob', at }).thenRefuses('forbidden');
    given([]).when({ type: 'deleteOwn', userId: 'ann', at }).thenRefuses('not_found');
  });
  it('is refused once the comment was erased with its author: the same host id is someone new (403)', () => {
    const erased: CommentEvent = { type: 'commentPosted', data: { ...postedData, text: null } };
    given([erased]).when({ type: 'deleteOwn', userId: 'ann', at }).thenRefuses('forbidden');
    given([erased, hidden]).when({ type: 'deleteOwn', userId: 'ann', at }).thenRefuses('forbidden');
  });
  it('leaves an erased comment to the moderators', () => {
    const erased: CommentEvent = { type: 'commentPosted', data: { ...postedData, text: null } };
    given([erased])
      .when({ type: 'delete', by: mod, at })
      .then([{ type: 'commentDeleted', data: { by: mod, previousStatus: 'visible', at } }]);
  });
});

describe('moderation', () => {
  it('hides a visible comment, with or without a reason, and a repeat changes nothing', () => {
    given([posted]).when({ type: 'hide', by: mod, at }).then([hidden]);
    given([posted])
      .when({ type: 'hide', by: admin, reason: 'rude', at })
      .then([{ type: 'commentHidden', data: { by: admin, reason: 'rude', at } }]);
    given([posted, hidden]).when({ type: 'hide', by: mod, at }).then([]);
  });
  it('unhides a hidden comment; a visible one stays as it is', () => {
    given([posted, hidden])
      .when({ type: 'unhide', by: mod, at })
      .then([{ type: 'commentUnhidden', data: { by: mod, at } }]);
    given([posted]).when({ type: 'unhide', by: mod, at }).then([]);
  });
  it('deletes a visible or hidden comment; deleting again changes nothing', () => {
    given([posted])
      .when({ type: 'delete', by: admin, reason: 'scam', at })
      .then([{ type: 'commentDeleted', data: { by: admin, reason: 'scam', previousStatus: 'visible', at } }]);
    given([posted, hidden])
      .when({ type: 'delete', by: admin, at })
      .then([{ type: 'commentDeleted', data: { by: admin, previousStatus: 'hidden', at } }]);
    given([posted, deleted]).when({ type: 'delete', by: admin, at }).then([]);
  });
  it('refuses to hide or unhide a deleted comment (409) and anything on no comment (404)', () => {
    given([posted, deleted]).when({ type: 'hide', by: mod, at }).thenRefuses('invalid_transition');
    given([posted, deleted]).when({ type: 'unhide', by: mod, at }).thenRefuses('invalid_transition');
    for (const type of ['hide', 'unhide', 'delete'] as const) {
      given([]).when({ type, by: mod, at }).thenRefuses('not_found');
    }
  });
});

describe('reports', () => {
  it('records one report per user; a second from the same user changes nothing', () => {
    given([posted])
      .when(report(1))
      .then([reported(1)]);
    given([posted, reported(1)])
      .when(report(2, 'r1'))
      .then([]);
  });
  it('hides the comment at the threshold of distinct reporters, recording the rule and threshold', () => {
    given([posted, reported(1), reported(2)])
      .when(report(3))
      .then([
        reported(3),
        { type: 'commentAutoHidden', data: { rule: 'distinct_reports', threshold: 3, reports: 3, at } },
      ]);
    given([posted, reported(1)])
      .when(report(2))
      .then([reported(2)]);
  });
  it('uses the threshold in force now, and hides once: an unhide by a moderator stands', () => {
    given([posted, reported(1)])
      .when(report(2, 'r2', 2))
      .then([
        reported(2),
        { type: 'commentAutoHidden', data: { rule: 'distinct_reports', threshold: 2, reports: 2, at } },
      ]);
    const autoHidden: CommentEvent = {
      type: 'commentAutoHidden',
      data: { rule: 'distinct_reports', threshold: 2, reports: 2, at },
    };
    const unhidden: CommentEvent = { type: 'commentUnhidden', data: { by: mod, at } };
    given([posted, reported(1), reported(2), autoHidden, unhidden])
      .when(report(3, 'r3', 2))
      .then([reported(3)]);
  });
  it('cannot be made on a comment the reporter cannot see (404)', () => {
    given([posted, hidden]).when(report(1)).thenRefuses('not_found');
    given([posted, deleted]).when(report(1)).thenRefuses('not_found');
    given([]).when(report(1)).thenRefuses('not_found');
  });
  it('are resolved together: dismiss only resolves; hide and delete also act', () => {
    const reportedTwice = [posted, reported(1), reported(2)];
    const resolved = (action: 'dismiss' | 'hide' | 'delete'): CommentEvent => ({
      type: 'reportsResolved',
      data: { reportIds: [reportId(1), reportId(2)], action, by: admin, at },
    });
    given(reportedTwice)
      .when({ type: 'resolveReports', action: 'dismiss', by: admin, at })
      .then([resolved('dismiss')]);
    given(reportedTwice)
      .when({ type: 'resolveReports', action: 'hide', by: admin, at })
      .then([resolved('hide'), { type: 'commentHidden', data: { by: admin, at } }]);
    given(reportedTwice)
      .when({ type: 'resolveReports', action: 'delete', by: admin, at })
      .then([
        resolved('delete'),
        { type: 'commentDeleted', data: { by: admin, previousStatus: 'visible', at } },
      ]);
  });
  it('resolving with hide on a comment already hidden (or deleted) records only the resolution', () => {
    const autoHidden: CommentEvent = {
      type: 'commentAutoHidden',
      data: { rule: 'distinct_reports', threshold: 1, reports: 1, at },
    };
    const resolvedHide: CommentEvent = {
      type: 'reportsResolved',
      data: { reportIds: [reportId(1)], action: 'hide', by: admin, at },
    };
    given([posted, reported(1), autoHidden])
      .when({ type: 'resolveReports', action: 'hide', by: admin, at })
      .then([resolvedHide]);
    given([posted, reported(1), deleted])
      .when({ type: 'resolveReports', action: 'hide', by: admin, at })
      .then([resolvedHide]);
  });
  it('refuses to resolve when nothing is open (409), and on no comment (404)', () => {
    const done: CommentEvent = {
      type: 'reportsResolved',
      data: { reportIds: [reportId(1)], action: 'dismiss', by: admin, at },
    };
    given([posted, reported(1), done])
      .when({ type: 'resolveReports', action: 'dismiss', by: admin, at })
      .thenRefuses('invalid_transition');
    given([]).when({ type: 'resolveReports', action: 'dismiss', by: admin, at }).thenRefuses('not_found');
  });
});
