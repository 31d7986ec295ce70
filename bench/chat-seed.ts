import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { countPendingNotifications } from '../src/chat/processed-events.ts';
import type { IntercomSandbox } from '../src/integrations/intercom/sandbox/index.ts';
import { call } from './channel-seed.ts';
import type { Target } from './load.ts';
import type { Service } from './targets.ts';

/** Operator replies before the load: with the user's first message, the polled conversation. */
export const SEED_REPLIES = 5;
const USER_TEXT =
  'Hello, my order #48213 has not arrived yet and the tracking page shows nothing. Can you help?';
/** Webhooks are retried once after 5 s (the sandbox's setting in startSupport); this covers it. */
const SETTLE_TIMEOUT_MS = 15_000;

// What a teammate writes: paragraphs, emphasis, a list, a link; Intercom keeps bodies as HTML.
const FRAGMENTS = [
  '<p>Thanks for getting in touch, and sorry for the wait.</p>',
  '<p>I have checked your order: it left our warehouse on <b>Monday</b> and is now with the courier.</p>',
  '<ul><li>Tracking number: <code>ZX-48213-PL</code></li><li>Expected delivery: <i>Thursday</i></li></ul>',
  '<p>You can follow it on <a href="https://help.example.com/articles/4821-tracking">the tracking page</a>.</p>',
  '<p>If it has not arrived by Friday, reply here and we will send a replacement right away.</p>',
  '<p>Anything else I can help with today?</p>',
];
// Short ones and long ones (200 to 500 characters), as replies come.
const LENGTHS = [60, 240, 480, 120, 360];

/**
 * The `i`th operator reply, the same on every run: fragments from the `i`th on, as many as fit in the
 * `i`th length (at least one).
 */
export function operatorReply(i: number): string {
  const length = LENGTHS[i % LENGTHS.length] ?? 200;
  let body = '';
  for (let k = 0; k < FRAGMENTS.length; k++) {
    const next = FRAGMENTS[(i + k) % FRAGMENTS.length] ?? '';
    if (body !== '' && body.length + next.length > length) break;
    body += next;
  }
  return body;
}

export const conversationOf = z.object({
  id: z.string(),
  state: z.string(),
  messages: z.array(z.object({ id: z.string(), author: z.object({ type: z.string() }), body: z.string() })),
});
export type PolledConversation = z.infer<typeof conversationOf>;

/** What the seeding made: one user's open conversation with the team's replies, and its two polls. */
export interface SeededChat {
  readonly userId: string;
  readonly conversationId: string;
  /** `GET /api/conversations/:id` with the owner's session token. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly messages: number;
  /** The 200's body, in bytes. */
  readonly bodyBytes: number;
  /** Lengths of the operator replies' HTML bodies, in characters. */
  readonly replyLengths: readonly number[];
  /** No If-None-Match: answered 200. */
  readonly poll200: Target;
  /** The ETag of a 200: answered 304. */
  readonly poll304: Target;
}

export function sandboxOf(service: Service): IntercomSandbox {
  const { sandbox } = service.support;
  if (!sandbox) throw new Error('the chat bench needs the Intercom sandbox (no SUPPORT_ACCESS_TOKEN)');
  return sandbox;
}

/**
 * Waits until every webhook the sandbox sent has been delivered (retries included) and every stored one
 * processed by the inbox worker, so no invalidation is still on its way.
 */
export async function webhooksSettled(service: Service, signal: AbortSignal): Promise<void> {
  const until = Date.now() + SETTLE_TIMEOUT_MS;
  await sandboxOf(service).operator.webhooksIdle();
  for (;;) {
    if ((await countPendingNotifications(service.pool)) === 0) return;
    if (Date.now() > until) throw new Error(`support webhooks still pending after ${SETTLE_TIMEOUT_MS} ms`);
    await sleep(20, undefined, { signal });
  }
}

/** One poll of the conversation: it must answer 200 with an ETag. */
export async function pollOnce(
  url: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<{ conversation: PolledConversation; etag: string; bytes: number }> {
  const response = await fetch(url, { headers, signal });
  const text = await response.text();
  const etag = response.headers.get('etag');
  if (response.status !== 200 || !etag) {
    throw new Error(`chat poll failed: ${response.status} ${etag ?? 'no ETag'} ${text.slice(0, 300)}`);
  }
  return { conversation: conversationOf.parse(JSON.parse(text)), etag, bytes: Buffer.byteLength(text) };
}

/**
 * Through the client API and the sandbox's operator: a user (new on every run, since the sandbox's
 * contacts die with it) opens a conversation, the team replies `SEED_REPLIES` times through webhooks;
 * once they are all processed, the poll must answer 200 with every message and an ETag, and 304 with it.
 */
export async function seedChat(service: Service, signal: AbortSignal): Promise<SeededChat> {
  const { operator } = sandboxOf(service);
  const userId = `bench-chat-user-${randomBytes(4).toString('hex')}`;
  const headers = { authorization: `Bearer ${service.sessionToken(userId)}` };
  const sent = z.object({ conversationId: z.string(), created: z.literal(true) }).parse(
    await call(
      `${service.base}/api/conversations`,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ text: USER_TEXT }),
        signal,
      },
      201,
    ),
  );
  const { conversationId } = sent;
  const replies = Array.from({ length: SEED_REPLIES }, (_, i) => operatorReply(i));
  // One after the other, as a teammate writes them.
  for (const body of replies) await operator.reply(conversationId, { body });
  await webhooksSettled(service, signal);

  const url = `${service.base}/api/conversations/${conversationId}`;
  const { conversation, etag, bytes } = await pollOnce(url, headers, signal);
  const authors = conversation.messages.map((m) => m.author.type).join(',');
  const expected = ['user', ...replies.map(() => 'operator')].join(',');
  if (conversation.state !== 'open' || authors !== expected) {
    throw new Error(
      `chat poll check failed: ${conversation.state}, authors ${authors} (expected ${expected})`,
    );
  }
  const poll304 = { url, headers: { ...headers, 'if-none-match': etag }, expectedStatus: 304 };
  const again = await fetch(url, { headers: poll304.headers, signal });
  if (again.status !== 304) throw new Error(`chat poll check with If-None-Match failed: ${again.status}`);
  return {
    userId,
    conversationId,
    url,
    headers,
    messages: conversation.messages.length,
    bodyBytes: bytes,
    replyLengths: replies.map((r) => r.length),
    poll200: { url, headers },
    poll304,
  };
}
