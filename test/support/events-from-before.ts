import { randomUUID } from 'node:crypto';
import type { EventToAppend, Json } from '../../src/events/envelope.ts';
import { createPostgresEventStore } from '../../src/events/store/postgres.ts';
import { createLogger } from '../../src/http/logger.ts';

const at = '2025-01-02T03:04:05.000Z';
const moderator = { type: 'moderator', id: 'mod-1' };

/** An event as the service wrote it then. */
export function event(type: string, data: Json, schemaVersion = 1): EventToAppend {
  const id = randomUUID();
  return {
    id,
    type,
    data,
    metadata: {
      actor: { type: 'user', id: 'seed' },
      correlationId: id,
      causationId: null,
      occurredAt: at,
      schemaVersion,
    },
  };
}

/** The plain personal values the log from before holds, by their user. */
export const PLAIN = {
  ann: [
    'PLAIN comment by ann',
    'PLAIN complaint by ann',
    'PLAIN-ann-scan.pdf',
    'PLAIN-ann-photo.jpg',
    'PLAIN-fcm-token-ann',
    'PLAIN-chat-id-ann',
    'PLAIN-app-version-ann',
    'PLAIN snippet by ann',
  ],
  bob: ['PLAIN comment by bob', 'PLAIN note by bob', 'PLAIN csat by bob', 'PLAIN ban reason for bob'],
} as const;

/** Events of the types with personal fields in the log from before; `SEALABLE` of them hold a plain value. */
export const PERSONAL_EVENTS = 12;
export const SEALABLE = 10;

/**
 * A log written before sealing existed: every personal field in the clear, through a PostgreSQL store
 * without the sealing decorator. Answers the streams it wrote.
 */
export async function appendEventsFromBefore(connectionString: string): Promise<Record<string, string>> {
  const store = createPostgresEventStore({ connectionString, logger: createLogger('silent') });
  const channelId = randomUUID();
  const postId = randomUUID();
  const streams = {
    annComment: `comment-${randomUUID()}`,
    bobComment: `comment-${randomUUID()}`,
    complaint: `complaint-${randomUUID()}`,
    annDevices: 'userDevices-ann',
    bobCsat: 'csatRating-conversation:c-1',
    annCsat: 'csatRating-ticket:t-1',
    moderation: `channelModeration-${channelId}`,
    channel: `channel-${channelId}`,
  };
  const comment = (authorId: string, text: string) =>
    event('commentPosted', { channelId, postId, authorId, text, at });
  try {
    await store.append(
      streams.channel,
      [event('channelCreated', { title: 'Public channel title' })],
      'no_stream',
    );
    await store.append(
      streams.annComment,
      [
        comment('ann', 'PLAIN comment by ann'),
        event('commentReported', {
          reportId: randomUUID(),
          reporterId: 'bob',
          reason: 'spam',
          note: 'PLAIN note by bob',
          at,
        }),
        event('commentReported', { reportId: randomUUID(), reporterId: 'cid', reason: 'abuse', at }),
        event('commentHidden', { by: moderator, reason: 'a moderator reason', at }),
      ],
      'no_stream',
    );
    await store.append(streams.bobComment, [comment('bob', 'PLAIN comment by bob')], 'no_stream');
    const attachment = (name: string) => ({
      fileId: randomUUID(),
      storageKey: `uploads/${randomUUID()}`,
      name,
      contentType: 'application/octet-stream',
      size: 10,
    });
    await store.append(
      streams.complaint,
      [
        event('complaintSubmitted', {
          userId: 'ann',
          reason: { id: randomUUID(), title: 'Other' },
          text: 'PLAIN complaint by ann',
          attachments: [attachment('PLAIN-ann-scan.pdf'), attachment('PLAIN-ann-photo.jpg')],
          at,
        }),
      ],
      'no_stream',
    );
    await store.append(
      streams.annDevices,
      [
        // Version 1: no provider, which the upcaster adds on read.
        event('deviceRegistered', { platform: 'mobile', token: 'PLAIN-fcm-token-ann' }, 1),
        event(
          'deviceRegistered',
          {
            platform: 'tma',
            token: 'PLAIN-chat-id-ann',
            provider: 'telegram',
            telemetry: { appVersion: 'PLAIN-app-version-ann', deviceLang: 'pt-BR' },
          },
          2,
        ),
        event('deviceUnregistered', { token: 'PLAIN-fcm-token-ann', reason: 'logout' }),
      ],
      'no_stream',
    );
    const rating = (userId: string, targetType: string, targetId: string, comment: string | null) =>
      event('csatRated', { ratingId: randomUUID(), userId, targetType, targetId, rating: 4, comment, at });
    await store.append(
      streams.bobCsat,
      [rating('bob', 'conversation', 'c-1', 'PLAIN csat by bob')],
      'no_stream',
    );
    await store.append(streams.annCsat, [rating('ann', 'ticket', 't-1', null)], 'no_stream');
    await store.append(
      streams.moderation,
      [
        event('userBanned', {
          userId: 'bob',
          until: null,
          reason: 'PLAIN ban reason for bob',
          by: moderator,
          at,
        }),
        event('commentRejected', {
          postId,
          userId: 'ann',
          kind: 'link',
          snippet: 'PLAIN snippet by ann',
          hash: '0'.repeat(64),
          at,
        }),
        event('moderatorAssigned', { userId: 'cid', by: moderator, at }),
      ],
      'no_stream',
    );
  } finally {
    await store.close();
  }
  return streams;
}
