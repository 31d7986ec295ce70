import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { type Answer, type Http, jsonOf } from './fleet-http.ts';
import {
  DEFAULT_INTERVAL_MS,
  type FleetWorld,
  HOT_POSTS,
  POLL_ROUTES,
  perKey,
  type PollRoute,
  readsComments,
} from './fleet-shape.ts';
import { bump, latencyOf, newHistogram, type PollResult, recordMs, statusKey } from './fleet-stats.ts';

/** The polling users: each route of each user is a schedule with its own ETag, interval and cursor. */

/** The measured window, in `performance.now()` time; both edges Infinity until it opens. */
export interface Window {
  open: number;
  close: number;
}
export const inWindow = (w: Window, t: number) => t >= w.open && t < w.close;

export interface FleetContext {
  readonly http: Http;
  readonly origin: string;
  readonly world: FleetWorld;
  readonly window: Window;
  /** False once the step stops: nothing more is sent or scheduled. */
  readonly active: () => boolean;
  /** Registers a task with the scheduler's run table; answers its number. */
  readonly task: (run: (due: number, now: number) => void) => number;
  readonly at: (due: number, task: number) => void;
  /** When a user other than the author first got each comment in a poll. */
  readonly seenByOther: Map<string, number>;
  readonly inFlight: { now: number; max: number };
}

interface Slot {
  readonly route: PollRoute;
  /** The user's index in the fleet. */
  readonly user: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly path: string;
  task: number;
  intervalMs: number;
  due: number;
  etag: string | null;
  cursor: string | null;
  inFlight: boolean;
  /** The poll in flight was due inside the window. */
  counted: boolean;
}

/** API.md's default page of a thread poll (the generator asks for no other `limit`). */
const THREAD_PAGE = 20;

const commentPage = z.object({
  items: z.array(z.object({ id: z.string(), mine: z.boolean().optional() })),
  nextCursor: z.string(),
});

/** ±10 % around the interval, so users drift apart as real ones do. */
const jittered = (ms: number) => ms * (0.9 + 0.2 * Math.random());

function routesOf(world: FleetWorld, i: number): [PollRoute, string][] {
  const user = world.users[i];
  const channel = `/api/channel/${world.channelId}`;
  const post = world.postIds[Math.floor(i / 5) % HOT_POSTS] ?? '';
  const routes: [PollRoute, string][] = [
    ['unread', '/api/unread'],
    ['feed', `${channel}/posts`],
  ];
  if (readsComments(i)) routes.push(['comments', `${channel}/posts/${post}/comments`]);
  if (user?.conversationId) routes.push(['chat', `/api/conversations/${user.conversationId}`]);
  return routes;
}

/**
 * Starts `users` users: each one becomes active at a random moment of the ramp and polls each of its
 * routes first at a random offset within the route's interval.
 */
export function startPolls(ctx: FleetContext, users: number, rampMs: number) {
  const stats = perKey(POLL_ROUTES, () => ({
    scheduled: 0,
    answered: 0,
    skipped: 0,
    errorsOutside: 0,
    slowed: 0,
    maxIntervalMs: 0,
    statuses: {},
    histogram: newHistogram(),
  }));
  const slots: Slot[] = [];
  const schedule = (slot: Slot, due: number) => {
    slot.due = due;
    ctx.at(due, slot.task);
  };

  const answered = (slot: Slot, sentAt: number, answer: Answer) => {
    const { status, etag, body } = answer;
    const at = performance.now();
    ctx.inFlight.now--;
    slot.inFlight = false;
    const s = stats[slot.route];
    const ok = status === 200 || status === 304;
    if (slot.counted) {
      bump(s.statuses, statusKey(status));
      if (answer.pollIntervalMs !== null) {
        s.maxIntervalMs = Math.max(s.maxIntervalMs, answer.pollIntervalMs);
        if (answer.pollIntervalMs > DEFAULT_INTERVAL_MS[slot.route]) s.slowed++;
      }
      if (ok) {
        s.answered++;
        recordMs(s.histogram, at - sentAt);
      }
    } else if (!ok) s.errorsOutside++;
    if (status === 200) slot.etag = etag;
    if (status === 200 && body !== null) {
      const page = commentPage.safeParse(jsonOf(body));
      if (page.success) {
        slot.cursor = page.data.nextCursor;
        for (const item of page.data.items) {
          if (item.mine === false && !ctx.seenByOther.has(item.id)) ctx.seenByOther.set(item.id, at);
        }
        // A full page may have more behind it: a client drains the backlog at once, as API.md's
        // cursors intend, instead of falling a page further behind every interval on a busy thread.
        if (page.data.items.length >= THREAD_PAGE && ctx.active()) schedule(slot, at);
      }
    }
  };

  const fire = (slot: Slot, due: number, now: number) => {
    if (!ctx.active() || slot.due !== due) return;
    const counted = inWindow(ctx.window, due);
    const s = stats[slot.route];
    if (counted) s.scheduled++;
    schedule(slot, due + jittered(slot.intervalMs));
    if (slot.inFlight) {
      if (counted) s.skipped++;
      return;
    }
    slot.inFlight = true;
    slot.counted = counted;
    ctx.inFlight.max = Math.max(ctx.inFlight.max, ++ctx.inFlight.now);
    const since =
      slot.route === 'comments' && slot.cursor !== null ? `?since=${encodeURIComponent(slot.cursor)}` : '';
    const headers = slot.etag === null ? slot.headers : { ...slot.headers, 'if-none-match': slot.etag };
    void ctx.http
      .send({
        origin: ctx.origin,
        path: `${slot.path}${since}`,
        method: 'GET',
        headers,
        wantBody: slot.route === 'comments',
        user: slot.user,
      })
      .then((answer) => {
        answered(slot, now, answer);
        // The server may slow its clients down: the next poll follows its interval from this one's start.
        if (answer.pollIntervalMs !== null && answer.pollIntervalMs !== slot.intervalMs && ctx.active()) {
          slot.intervalMs = answer.pollIntervalMs;
          schedule(slot, Math.max(performance.now(), now + jittered(slot.intervalMs)));
        }
      });
  };

  const start = performance.now();
  for (let i = 0; i < users; i++) {
    const user = ctx.world.users[i];
    if (!user) throw new Error(`the fleet has ${ctx.world.users.length} users, not ${users}`);
    const activeAt = start + Math.random() * rampMs;
    for (const [route, path] of routesOf(ctx.world, i)) {
      const slot: Slot = {
        route,
        user: i,
        path,
        headers: { authorization: `Bearer ${user.token}` },
        task: -1,
        intervalMs: DEFAULT_INTERVAL_MS[route],
        due: 0,
        etag: null,
        cursor: null,
        inFlight: false,
        counted: false,
      };
      slot.task = ctx.task((due, now) => {
        fire(slot, due, now);
      });
      slots.push(slot);
      schedule(slot, activeAt + Math.random() * slot.intervalMs);
    }
  }

  return {
    results(): Record<PollRoute, PollResult> {
      const unanswered = (route: PollRoute) =>
        slots.filter((s) => s.route === route && s.inFlight && s.counted).length;
      return perKey(POLL_ROUTES, (r) => {
        const { histogram, ...counts } = stats[r];
        return { ...counts, unanswered: unanswered(r), latency: latencyOf(histogram) };
      });
    },
  };
}
