import { readFileSync } from 'node:fs';

/** The push bench's arithmetic over what the fakes saw: pure functions, no I/O. */

export type Sample = readonly [number, number];

/** When the sampled count first reached `target`, interpolated between samples; null if it never did. */
export function timeReaching(samples: readonly Sample[], target: number): number | null {
  let previous: Sample | undefined;
  for (const sample of samples) {
    if (sample[1] >= target) {
      if (!previous || sample[1] === previous[1]) return sample[0];
      const share = (target - previous[1]) / (sample[1] - previous[1]);
      return previous[0] + share * (sample[0] - previous[0]);
    }
    previous = sample;
  }
  return null;
}

export interface DeliveryCurve {
  /** Deliveries per second between 10 % and 90 % of `total` (the steady state); null when not reached. */
  readonly steadyPerSecond: number | null;
  readonly at10: number | null;
  readonly at90: number | null;
  /** When the count reached `total` (the last sample's time at or past it); null when it did not. */
  readonly doneAt: number | null;
  /** Deliveries in each whole second from `from`, up to the last sample. */
  readonly perSecond: readonly number[];
  /** The most deliveries within one of those seconds. */
  readonly peakSecond: number;
}

export function deliveryCurve(samples: readonly Sample[], total: number, from: number): DeliveryCurve {
  const at10 = timeReaching(samples, total * 0.1);
  const at90 = timeReaching(samples, total * 0.9);
  const done = samples.find((s) => s[1] >= total);
  const steadyPerSecond =
    at10 !== null && at90 !== null && at90 > at10 ? (total * 0.8) / ((at90 - at10) / 1000) : null;
  const last = samples.at(-1);
  const perSecond: number[] = [];
  if (last) {
    const countAt = (t: number) => {
      let count = 0;
      for (const s of samples) {
        if (s[0] > t) break;
        count = s[1];
      }
      return count;
    };
    for (let t = from; t < last[0]; t += 1000) perSecond.push(countAt(t + 1000) - countAt(t));
  }
  return {
    steadyPerSecond,
    at10,
    at90,
    doneAt: done ? done[0] : null,
    perSecond,
    peakSecond: perSecond.length === 0 ? 0 : Math.max(...perSecond),
  };
}

/** The most timestamps (ms, any order) within any window of 1000 ms, as the Telegram fake counts them. */
export function peakPerSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= 1000) start++;
    peak = Math.max(peak, end - start + 1);
  }
  return peak;
}

export interface TelegramWindow {
  /** Messages answered 200 in the window. */
  readonly sent: number;
  /** Messages answered otherwise. */
  readonly other: number;
  readonly firstAt: number | null;
  readonly lastAt: number | null;
  /** Messages per second from the first message to the last in the window. */
  readonly ratePerSecond: number | null;
  readonly peakOverall: number;
  readonly peakPerChat: number;
  /** Chats that got more than one message in the window. */
  readonly chatsMessagedTwice: number;
  /** Messages answered 200 in each 5 s from `from`. */
  readonly perFiveSeconds: readonly number[];
  /** The longest time without a message between the first and the last (ms). */
  readonly longestGapMs: number;
}

/** The Telegram fake's messages ([at, chat, status]) within [from, to). */
export function telegramWindow(
  messages: readonly (readonly [number, string, number])[],
  from: number,
  to: number,
): TelegramWindow {
  const inside = messages.filter(([at]) => at >= from && at < to);
  const sent = inside.filter(([, , status]) => status === 200);
  const byChat = new Map<string, number[]>();
  for (const [at, chat] of sent) byChat.set(chat, [...(byChat.get(chat) ?? []), at]);
  let peakPerChat = 0;
  let chatsMessagedTwice = 0;
  for (const times of byChat.values()) {
    peakPerChat = Math.max(peakPerChat, peakPerSecond(times));
    if (times.length > 1) chatsMessagedTwice += 1;
  }
  const times = sent.map(([at]) => at);
  const firstAt = times.length === 0 ? null : Math.min(...times);
  const lastAt = times.length === 0 ? null : Math.max(...times);
  const perFiveSeconds: number[] = [];
  for (let t = from; t < to; t += 5_000)
    perFiveSeconds.push(times.filter((at) => at >= t && at < t + 5_000).length);
  const sorted = [...times].sort((a, b) => a - b);
  let longestGapMs = 0;
  for (let i = 1; i < sorted.length; i++)
    longestGapMs = Math.max(longestGapMs, (sorted[i] ?? 0) - (sorted[i - 1] ?? 0));
  return {
    perFiveSeconds,
    longestGapMs,
    sent: sent.length,
    other: inside.length - sent.length,
    firstAt,
    lastAt,
    ratePerSecond:
      firstAt === null || lastAt === null || lastAt <= firstAt
        ? null
        : (sent.length - 1) / ((lastAt - firstAt) / 1000),
    peakOverall: peakPerSecond(times),
    peakPerChat,
    chatsMessagedTwice,
  };
}

export const medianOf = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const TICKS_PER_SECOND = 100;

/**
 * The machine's CPU time from /proc/stat, in seconds: busy (user, nice, system, irq, softirq: work done on
 * this machine's CPUs), of which softirq (the kernel's network processing, loopback included, is mostly
 * here and counted to no process), and steal (time the hypervisor gave to others: not work, not busy).
 */
export function machineTimes(): { machine: number; softirq: number; steal: number } {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return {
      machine: (user + nice + system + irq + softirq) / TICKS_PER_SECOND,
      softirq: softirq / TICKS_PER_SECOND,
      steal: steal / TICKS_PER_SECOND,
    };
  } catch {
    return { machine: Number.NaN, softirq: Number.NaN, steal: Number.NaN };
  }
}
