import { randomBytes } from 'node:crypto';
import { type DeviceEvent, deviceCodec, type Platform, providerOf } from '../../src/events/devices.ts';
import { type EventToAppend, streamName } from '../../src/events/envelope.ts';
import { eventId, newCommandId } from '../../src/events/ids.ts';

/** The append benchmark's streams: a category of their own, which no projection reads. */
export const APPEND_CATEGORY = 'appendBench';

// FCM registration tokens are about 150 characters; the padding is per run, the prefix makes them unique.
const TOKEN_PADDING = randomBytes(96).toString('base64url');
export const deviceToken = (userId: string, n: number): string => `${userId}.${n}.${TOKEN_PADDING}`;

export const registered = (token: string, platform: Platform) =>
  ({
    type: 'deviceRegistered' as const,
    data: { platform, token, provider: providerOf(platform) },
  }) satisfies DeviceEvent;

export const unregistered = (token: string): DeviceEvent => ({
  type: 'deviceUnregistered',
  data: { token, reason: 'logout' },
});

/** What a command handler hands the store (src/commands/handler.ts): derived ids, full metadata. */
export function toAppend(userId: string, stream: string, events: readonly DeviceEvent[]): EventToAppend[] {
  const commandId = newCommandId();
  const occurredAt = new Date().toISOString();
  return events.map((event, index) => ({
    id: eventId(commandId, stream, index),
    type: event.type,
    data: event.data,
    metadata: {
      actor: { type: 'user', id: userId },
      correlationId: commandId,
      causationId: null,
      occurredAt,
      schemaVersion: deviceCodec.schemaVersion(event.type),
    },
  }));
}

/**
 * One user's history for the catch-up: seven devices registered, two of them logged out, one of those
 * registered again. Exercises every branch of the devices projection and leaves six rows per user.
 */
export function userHistory(userId: string): DeviceEvent[] {
  const platform = (n: number): Platform => (n % 2 === 0 ? 'mobile' : 'tma');
  return [
    ...Array.from({ length: 7 }, (_, n) => registered(deviceToken(userId, n), platform(n))),
    unregistered(deviceToken(userId, 0)),
    unregistered(deviceToken(userId, 1)),
    registered(deviceToken(userId, 0), platform(0)),
  ];
}
export const USER_HISTORY_LENGTH = 10;
export const ROWS_PER_USER_HISTORY = 6;

/**
 * A writer's own streams, each `length` events long, written one event per append: where the next
 * append goes and how many events its stream holds already (the expected revision).
 */
export interface WriterStreams {
  readonly stream: string;
  readonly userId: string;
  /** Events in `stream` before the next append: 0 for a new stream. */
  readonly count: number;
  /** Call after an append succeeded. */
  advance(): void;
}

export function writerStreams(category: string, writer: string, length: number): WriterStreams {
  let serial = 0;
  let count = 0;
  const id = () => `${writer}-${serial}`;
  return {
    get stream() {
      return streamName(category, id());
    },
    get userId() {
      return id();
    },
    get count() {
      return count;
    },
    advance() {
      count++;
      if (count === length) {
        serial++;
        count = 0;
      }
    },
  };
}
