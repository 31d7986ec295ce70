import type { Position } from '../events/envelope.ts';
import {
  type ButtonClicked,
  type ChannelRead,
  clicksStream,
  type PostsViewed,
  readsStream,
  viewsStream,
} from '../events/interactions.ts';
import type { EventStore } from '../events/store/port.ts';
import { appendEvents, type CommandContext } from './handler.ts';

type ReaderEvent = PostsViewed | ButtonClicked | ChannelRead;

/**
 * Appends one reader event without a revision check: views, clicks and read markers need no decision
 * (the projections settle duplicates and keep markers moving forward). The event id still comes from
 * the command id, so a retried request with an Idempotency-Key appends nothing new.
 */
async function appendReaderEvent(
  store: EventStore,
  stream: string,
  event: ReaderEvent,
  context: CommandContext,
  lingerMs?: number,
): Promise<Position> {
  const result = await appendEvents(store, stream, [event], {
    context,
    codec: { schemaVersion: () => 1 },
    expected: 'any',
    occurredAt: event.data.at,
    ...(lingerMs === undefined ? {} : { lingerMs }),
  });
  return result.position;
}

/**
 * Views are the bulk of all writes and nobody reads them back at once (the counts may lag, decision
 * 022), so each waits up to this long for others to commit with: one transaction for many views.
 */
export const VIEWS_LINGER_MS = 50;

export const recordViews = (
  store: EventStore,
  userId: string,
  data: PostsViewed['data'],
  context: CommandContext,
) => appendReaderEvent(store, viewsStream(userId), { type: 'postsViewed', data }, context, VIEWS_LINGER_MS);

export const recordClick = (
  store: EventStore,
  userId: string,
  data: ButtonClicked['data'],
  context: CommandContext,
) => appendReaderEvent(store, clicksStream(userId), { type: 'buttonClicked', data }, context);

export const recordRead = (
  store: EventStore,
  userId: string,
  data: ChannelRead['data'],
  context: CommandContext,
) => appendReaderEvent(store, readsStream(userId), { type: 'channelRead', data }, context);
