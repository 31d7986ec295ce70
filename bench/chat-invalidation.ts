import { createHistogram, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'slonik';
import { z } from 'zod';
import { type CallLog, type ProviderCalls, providerCalls } from './chat-calls.ts';
import {
  conversationOf,
  operatorReply,
  pollOnce,
  type SeededChat,
  sandboxOf,
  webhooksSettled,
} from './chat-seed.ts';
import { launch } from './load.ts';
import type { Service } from './targets.ts';

export interface InvalidationOptions {
  /** Connections polling the one conversation (autocannon), no If-None-Match: every answer a 200. */
  readonly pollers: number;
  /** Operator replies during the phase: each one webhook, one invalidation. */
  readonly replies: number;
  /** From one reply's start to the next's. */
  readonly spacingMs: number;
  /** The read cache's TTL, to tell its refreshes apart. */
  readonly ttlMs: number;
  readonly signal: AbortSignal;
}

export interface Invalidation {
  readonly pollers: number;
  readonly replies: number;
  readonly spacingMs: number;
  /** From the pollers' start to their stop. */
  readonly durationMs: number;
  /** 2xx answers to the pollers, and per second over the phase. */
  readonly polls: number;
  readonly pollsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Non-2xx answers, connection errors and timeouts of the pollers and the probe. */
  readonly failures: number;
  /** The replies' webhooks the inbox worker processed, and their tries (1 each when none failed). */
  readonly processed: number;
  readonly attempts: number;
  readonly calls: ProviderCalls;
  /** New messages the poll showed once the phase was over (`replies` when nothing was lost). */
  readonly shown: number;
  /** From each reply's start to the first probe poll that showed it, in order. */
  readonly visibleMs: readonly number[];
}

/** Before the first reply, so every poller is connected and the phase starts in the steady state. */
export const LEAD_MS = 1_000;
/** After the last webhook is processed, so a second read of one invalidation would still be counted. */
export const TAIL_MS = 500;
/** The probe's pace: the visibility times are late by up to this much. */
export const PROBE_MS = 20;
/** How long the last reply may take to show (one webhook retry after 5 s included). */
const VISIBLE_TIMEOUT_MS = 15_000;
/** autocannon's duration; the phase stops it well before. */
const MAX_POLL_S = 600;

/** autocannon against the conversation until `stop()`, latencies of 2xx answers in µs. */
function startPollers(chat: SeededChat, connections: number, signal: AbortSignal) {
  const latenciesUs = createHistogram();
  const target = { url: chat.url, headers: chat.headers };
  return { ...launch(target, connections, MAX_POLL_S, signal, latenciesUs), latenciesUs };
}

/**
 * Polls the conversation every `PROBE_MS` with the last ETag it got, and notes when the poll first
 * showed each message count.
 */
function startProbe(chat: SeededChat, signal: AbortSignal) {
  const seenAt = new Map<number, number>();
  let count = 0;
  let etag = '';
  let failures = 0;
  const probing = new AbortController();
  const either = AbortSignal.any([signal, probing.signal]);
  const halted = () => either.aborted;
  const running = (async () => {
    while (!halted()) {
      const due = performance.now() + PROBE_MS;
      try {
        const response = await fetch(chat.url, {
          headers: { ...chat.headers, ...(etag === '' ? {} : { 'if-none-match': etag }) },
          signal: either,
        });
        const text = await response.text();
        const at = performance.now();
        if (response.status === 200) {
          etag = response.headers.get('etag') ?? '';
          const shown = conversationOf.parse(JSON.parse(text)).messages.length;
          for (let n = count + 1; n <= shown; n++) seenAt.set(n, at);
          count = Math.max(count, shown);
        } else if (response.status !== 304) {
          failures++;
        }
      } catch {
        // Stopped mid-request; otherwise a refused connection or an unreadable answer: a failure.
        if (halted()) break;
        failures++;
      }
      await sleep(Math.max(0, due - performance.now()));
    }
  })();
  return {
    count: () => count,
    seenAt: (n: number) => seenAt.get(n),
    failures: () => failures,
    /** Stops the probe; its request in flight is dropped. */
    halt() {
      probing.abort();
    },
    stopped: running,
  };
}

/**
 * `pollers` connections poll the one conversation while `replies` operator replies arrive, one every
 * `spacingMs`, each through the signed webhook, the inbox and the cache's invalidation. The pollers run
 * until the poll shows every reply and every webhook is processed, then `TAIL_MS` more. The sandbox's
 * `GET /conversations/{id}` calls in that window should number exactly the invalidations.
 */
export async function measureInvalidation(
  service: Service,
  chat: SeededChat,
  log: CallLog,
  options: InvalidationOptions,
): Promise<Invalidation> {
  const { operator } = sandboxOf(service);
  const { signal } = options;
  const before = (await pollOnce(chat.url, chat.headers, signal)).conversation.messages.length;
  const probe = startProbe(chat, signal);
  const from = log.mark();
  const started = performance.now();
  const pollers = startPollers(chat, options.pollers, signal);
  const sentAt: number[] = [];
  const notificationIds: string[] = [];
  try {
    for (let i = 0; i < options.replies; i++) {
      const due = started + LEAD_MS + i * options.spacingMs;
      await sleep(Math.max(0, due - performance.now()), undefined, { signal });
      sentAt.push(performance.now());
      const { notificationId } = await operator.reply(chat.conversationId, {
        body: operatorReply(i + before),
      });
      notificationIds.push(notificationId);
    }
    const until = performance.now() + VISIBLE_TIMEOUT_MS;
    while (probe.count() < before + options.replies && performance.now() < until) {
      await sleep(PROBE_MS, undefined, { signal });
    }
    await webhooksSettled(service, signal);
    await sleep(TAIL_MS, undefined, { signal });
  } finally {
    pollers.stop();
    probe.halt();
    // On the way out with an error, whatever they end with is of no interest.
    void pollers.done.catch(() => undefined);
    void probe.stopped.catch(() => undefined);
  }
  const result = await pollers.done;
  const to = log.mark();
  const stopped = performance.now();
  await probe.stopped;

  const after = (await pollOnce(chat.url, chat.headers, signal)).conversation.messages.length;
  const { processed, attempts } = await service.pool.one(
    sql.type(z.object({ processed: z.number(), attempts: z.number() }))`
      SELECT count(*) FILTER (WHERE processed_at IS NOT NULL)::int AS processed,
             coalesce(sum(attempts), 0)::int AS attempts
      FROM processed_events WHERE notification_id = ANY (${sql.array(notificationIds, 'text')})`,
  );
  const visibleMs = sentAt.map((at, i) => {
    const seen = probe.seenAt(before + i + 1);
    return seen === undefined ? Number.NaN : Math.max(0, seen - at);
  });
  const durationMs = stopped - started;
  return {
    pollers: options.pollers,
    replies: options.replies,
    spacingMs: options.spacingMs,
    durationMs,
    polls: result['2xx'],
    pollsPerSecond: result['2xx'] / (durationMs / 1000),
    p50Ms: pollers.latenciesUs.percentile(50) / 1000,
    p99Ms: pollers.latenciesUs.percentile(99) / 1000,
    failures: result.non2xx + result.errors + result.timeouts + probe.failures(),
    processed,
    attempts,
    calls: providerCalls(log, from, to, chat.conversationId, options.ttlMs),
    shown: after - before,
    visibleMs,
  };
}
