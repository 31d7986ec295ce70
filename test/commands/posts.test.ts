import { describe, expect, it } from 'vitest';
import { fold } from '../../src/commands/handler.ts';
import { MAX_ATTACHMENTS, type PostCommand, postDecider } from '../../src/commands/posts.ts';
import type { PostAttachment, PostEvent, PostStatus } from '../../src/events/posts.ts';
import { specFor } from '../support/decider.ts';

const given = specFor(postDecider);
const CHANNEL = '5b0f5a7e-2a44-4d53-9a5b-1d1c7f6f0a01';
const T0 = '2026-11-22T10:00:00.000Z';
const T1 = '2026-11-22T11:00:00.000Z';
const LATER = '2026-11-23T09:00:00.000Z';
const button = { id: '0c6f7b0e-8d4e-4c0e-9a8f-3b1f2d9c4e01', label: 'Open', url: 'https://example.com/a' };
const image: PostAttachment = {
  id: '7a1e2f3d-4c5b-4a69-8f7e-6d5c4b3a2f10',
  kind: 'image',
  storageKey: 'posts/abc',
  contentType: 'image/png',
  size: 1234,
  width: 10,
  height: 20,
};

const drafted = (text = 'Hello, channel'): PostEvent => ({
  type: 'postDrafted',
  data: { channelId: CHANNEL, text, buttons: [button], commentsEnabled: true, at: T0 },
});
const scheduled: PostEvent = { type: 'postScheduled', data: { publishAt: LATER, notify: true, at: T0 } };
const publishedBy = (by: 'admin' | 'schedule', at = T1, notify = false): PostEvent => ({
  type: 'postPublished',
  data: { channelId: CHANNEL, notify, preview: 'Hello, channel', by, at },
});
const at = (
  type: 'postHidden' | 'postUnhidden' | 'postDeleted' | 'postUnscheduled',
  when = T1,
): PostEvent => ({
  type,
  data: { at: when },
});

// A history for every status, to run each command against.
const histories: Record<PostStatus | 'none', readonly PostEvent[]> = {
  none: [],
  draft: [drafted()],
  scheduled: [drafted(), scheduled],
  published: [drafted(), publishedBy('admin', T0)],
  hidden: [drafted(), publishedBy('admin', T0), at('postHidden', T0)],
  deleted: [drafted(), at('postDeleted', T0)],
};

// The moves the issue allows, by command: every other status refuses (404 before the post exists).
const transitions: readonly [PostCommand, readonly (PostStatus | 'none')[], PostEvent['type']][] = [
  [{ type: 'schedule', publishAt: LATER, notify: true, at: T1 }, ['draft'], 'postScheduled'],
  [{ type: 'unschedule', at: T1 }, ['scheduled'], 'postUnscheduled'],
  [{ type: 'publish', notify: false, at: T1 }, ['draft', 'scheduled'], 'postPublished'],
  [{ type: 'hide', at: T1 }, ['published'], 'postHidden'],
  [{ type: 'unhide', at: T1 }, ['hidden'], 'postUnhidden'],
  [{ type: 'delete', at: T1 }, ['draft', 'scheduled', 'published', 'hidden'], 'postDeleted'],
  [{ type: 'edit', text: 'Changed', at: T1 }, ['draft', 'scheduled', 'published', 'hidden'], 'postEdited'],
  [
    { type: 'addAttachment', attachment: image, at: T1 },
    ['draft', 'scheduled', 'published', 'hidden'],
    'postAttachmentAdded',
  ],
];

describe('post lifecycle decider', () => {
  for (const [command, allowed, eventType] of transitions) {
    for (const [status, history] of Object.entries(histories)) {
      const ok = allowed.includes(status as PostStatus);
      it(`${command.type} on a ${status} post: ${ok ? eventType : 'refused'}`, () => {
        if (ok) {
          const events = postDecider.decide(command, fold(postDecider, histories[status as PostStatus]));
          expect(events.map((e) => e.type)).toEqual([eventType]);
        } else if (status === 'none') {
          given(history).when(command).thenRefuses('not_found');
        } else {
          given(history)
            .when(command)
            .thenRefuses('invalid_transition', { message: new RegExp(`post that is ${status}`) });
        }
      });
    }
  }

  it('drafts a post only once', () => {
    const draft: PostCommand = {
      type: 'draft',
      channelId: CHANNEL,
      text: 'Hello, channel',
      buttons: [button],
      commentsEnabled: true,
      at: T0,
    };
    given([]).when(draft).then([drafted()]);
    given([drafted()])
      .when(draft)
      .thenRefuses('invalid_transition', { message: /exists already/ });
  });

  it('publishes with what the push reaction needs: channel, notify flag, preview, who', () => {
    given([drafted('x'.repeat(300))])
      .when({ type: 'publish', notify: true, at: T1 })
      .then([
        {
          type: 'postPublished',
          data: { channelId: CHANNEL, notify: true, preview: 'x'.repeat(200), by: 'admin', at: T1 },
        },
      ]);
  });

  it('refuses to publish an empty post, but publishes one with only an attachment', () => {
    given([drafted('  ')])
      .when({ type: 'publish', notify: false, at: T1 })
      .thenRefuses('invalid_transition', { message: /text or an attachment/ });
    const withImage: PostEvent = { type: 'postAttachmentAdded', data: { attachment: image, at: T0 } };
    given([drafted(''), withImage])
      .when({ type: 'publish', notify: false, at: T1 })
      .then([
        {
          type: 'postPublished',
          data: { channelId: CHANNEL, notify: false, preview: '', by: 'admin', at: T1 },
        },
      ]);
  });

  it('schedules only into the future', () => {
    given([drafted()])
      .when({ type: 'schedule', publishAt: T0, notify: false, at: T1 })
      .thenRefuses('invalid_transition', { message: /future/ });
  });

  it('the schedule job publishes a due post once, with the notify flag of the schedule, and nothing else', () => {
    given([drafted(), scheduled])
      .when({ type: 'publishDue', at: LATER })
      .then([publishedBy('schedule', LATER, true)]);
    given([drafted(), scheduled]).when({ type: 'publishDue', at: T1 }).then([]);
    for (const status of ['none', 'draft', 'published', 'hidden', 'deleted'] as const) {
      given(histories[status]).when({ type: 'publishDue', at: LATER }).then([]);
    }
    // Unscheduled before its time: the job finds nothing to do.
    given([drafted(), scheduled, at('postUnscheduled')])
      .when({ type: 'publishDue', at: LATER })
      .then([]);
  });

  it('edits only what changed, and nothing when nothing did', () => {
    given([drafted()])
      .when({ type: 'edit', text: 'Hello, channel', buttons: [button], commentsEnabled: true, at: T1 })
      .then([]);
    given([drafted()])
      .when({ type: 'edit', text: 'Hello, channel', commentsEnabled: false, at: T1 })
      .then([{ type: 'postEdited', data: { commentsEnabled: false, at: T1 } }]);
    given([drafted()])
      .when({ type: 'edit', buttons: [], at: T1 })
      .then([{ type: 'postEdited', data: { buttons: [], at: T1 } }]);
  });

  it('adds an attachment once, up to the limit, and removes only one it has', () => {
    const added: PostEvent = { type: 'postAttachmentAdded', data: { attachment: image, at: T0 } };
    given([drafted(), added]).when({ type: 'addAttachment', attachment: image, at: T1 }).then([]);
    const many = Array.from({ length: MAX_ATTACHMENTS }, (_, i): PostEvent => ({
      type: 'postAttachmentAdded',
      data: {
        attachment: { ...image, id: `7a1e2f3d-4c5b-4a69-8f7e-6d5c4b3a2f${String(i).padStart(2, '0')}` },
        at: T0,
      },
    }));
    given([drafted(), ...many])
      .when({
        type: 'addAttachment',
        attachment: { ...image, id: '7a1e2f3d-4c5b-4a69-8f7e-6d5c4b3a2fff' },
        at: T1,
      })
      .thenRefuses('invalid_transition', { message: /at most/ });
    given([drafted(), added])
      .when({ type: 'removeAttachment', attachmentId: image.id, at: T1 })
      .then([{ type: 'postAttachmentRemoved', data: { attachmentId: image.id, at: T1 } }]);
    given([drafted()])
      .when({ type: 'removeAttachment', attachmentId: image.id, at: T1 })
      .thenRefuses('not_found');
  });
});
