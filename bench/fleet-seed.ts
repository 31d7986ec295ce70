import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { seedChannel } from './channel-seed.ts';
import { type FleetUser, type FleetWorld, fleetUserId, hasConversation, POSTS } from './fleet-shape.ts';
import type { Service } from './targets.ts';

/** The fleet's world, made through the real API inside the service's process (it holds the Service). */

const OPENING_TEXT =
  'Hello, I was charged twice for my last order and the second payment has not been refunded yet.';
/** Conversations opened at once: the sandbox allows 1,666 calls per 10 s and each opening makes a few. */
const OPENING_CONCURRENCY = 4;
const OPENING_ATTEMPTS = 20;

const opened = z.object({ conversationId: z.string(), created: z.literal(true) });

/** A user's new support conversation through `POST /api/conversations`; a 429 or 503 is waited out. */
async function openConversation(service: Service, userId: string, signal: AbortSignal): Promise<string> {
  const headers = {
    authorization: `Bearer ${service.sessionToken(userId)}`,
    'content-type': 'application/json',
  };
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${service.base}/api/conversations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ text: OPENING_TEXT }),
      signal,
    });
    const text = await response.text();
    if (response.status === 201) return opened.parse(JSON.parse(text)).conversationId;
    if ((response.status !== 429 && response.status !== 503) || attempt === OPENING_ATTEMPTS) {
      throw new Error(`opening a conversation for ${userId}: ${response.status} ${text.slice(0, 300)}`);
    }
    const retryAfterS = Number(response.headers.get('retry-after') ?? '1');
    await sleep(Math.max(1, retryAfterS) * 1000, undefined, { signal });
  }
}

/**
 * A channel with `POSTS` published posts (buttons, a picture, reactions; channel-seed.ts), a session
 * token for each of `users` users, and an open conversation for each user `hasConversation` picks.
 */
export async function seedFleet(service: Service, users: number, signal: AbortSignal): Promise<FleetWorld> {
  const channel = await seedChannel(service, POSTS, signal);
  const conversations = new Map<number, string>();
  const waiting = Array.from({ length: users }, (_, i) => i).filter(hasConversation);
  await Promise.all(
    Array.from({ length: OPENING_CONCURRENCY }, async () => {
      for (let i = waiting.shift(); i !== undefined; i = waiting.shift()) {
        conversations.set(i, await openConversation(service, fleetUserId(i), signal));
      }
    }),
  );
  const fleet: FleetUser[] = Array.from({ length: users }, (_, i) => ({
    id: fleetUserId(i),
    token: service.sessionToken(fleetUserId(i)),
    conversationId: conversations.get(i) ?? null,
  }));
  return { channelId: channel.channelId, postIds: [...channel.postIds].reverse(), users: fleet };
}
