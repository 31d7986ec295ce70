import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { OPERATOR_PREFIX } from '../src/integrations/intercom/sandbox/operator-routes.ts';
import { operatorReply } from './chat-seed.ts';
import { benignTexts } from './comments-seed.ts';
import { jsonOf, type Request } from './fleet-http.ts';
import { type FleetContext, inWindow } from './fleet-polls.ts';
import { COMMENT_COOLDOWN_MS, HOT_POSTS, perKey, type Write, WRITE_RATES, WRITES } from './fleet-shape.ts';
import {
  bump,
  latencyOf,
  newHistogram,
  recordMs,
  statusKey,
  type Visibility,
  visibilityOf,
  type WriteResult,
} from './fleet-stats.ts';

/** The writer mix: comments, views, reactions from random users of the fleet, and operator replies. */

export interface OperatorTarget {
  readonly url: string;
  readonly token: string;
}

const THUMBS_UP = encodeURIComponent('👍');
const TEXTS = benignTexts(1_000, 160);
const MAX_VIEWED = 3;
const created = z.object({ id: z.string() });

const pick = <T>(list: readonly T[]): T | undefined => list[Math.floor(Math.random() * list.length)];

export function startWriters(ctx: FleetContext, users: number, operator: OperatorTarget) {
  const { world } = ctx;
  const stats = perKey(WRITES, () => ({
    sent: 0,
    errorsOutside: 0,
    statuses: {},
    histogram: newHistogram(),
  }));
  const lastComment = new Float64Array(users).fill(-Infinity);
  const reacted = new Set<string>();
  const chatUsers = world.users.slice(0, users).filter((u) => u.conversationId !== null);
  const posted: { id: string; at: number }[] = [];
  const json = (user: number) => ({
    authorization: `Bearer ${world.users[user]?.token ?? ''}`,
    'content-type': 'application/json',
  });
  const channel = `/api/channel/${world.channelId}`;
  const randomUser = () => Math.floor(Math.random() * users);
  let made = 0;
  const cooling = (user: number) =>
    performance.now() - (lastComment[user] ?? -Infinity) < COMMENT_COOLDOWN_MS;

  // Each answers the request to send now, and what to do with a 2xx; null when there is none to make.
  const makers: Record<Write, () => [Request, (body: string | null, sentAt: number) => void] | null> = {
    comment() {
      // Slow mode: a user who commented in the last interval would be refused; a real one would wait.
      let user = randomUser();
      for (let tries = 0; cooling(user); tries++) {
        if (tries === 20) return null;
        user = randomUser();
      }
      lastComment[user] = performance.now();
      const post = world.postIds[Math.floor(Math.random() * HOT_POSTS)] ?? '';
      const body = JSON.stringify({ text: TEXTS[made++ % TEXTS.length] });
      return [
        {
          origin: ctx.origin,
          path: `${channel}/posts/${post}/comments`,
          method: 'POST',
          headers: json(user),
          body,
          wantBody: true,
          user,
        },
        (answer, sentAt) => {
          const comment = created.safeParse(jsonOf(answer ?? ''));
          if (comment.success && inWindow(ctx.window, sentAt))
            posted.push({ id: comment.data.id, at: sentAt });
        },
      ];
    },
    view() {
      const count = 1 + Math.floor(Math.random() * MAX_VIEWED);
      const postIds = [...new Set(Array.from({ length: count }, () => pick(world.postIds) ?? ''))];
      const body = JSON.stringify({ postIds });
      const user = randomUser();
      return [
        { origin: ctx.origin, path: `${channel}/views`, method: 'POST', headers: json(user), body, user },
        () => undefined,
      ];
    },
    reaction() {
      const user = randomUser();
      const post = pick(world.postIds) ?? '';
      const key = `${user}:${post}`;
      const had = reacted.has(key);
      const headers = { authorization: `Bearer ${world.users[user]?.token ?? ''}` };
      const path = `${channel}/posts/${post}/reactions/${THUMBS_UP}`;
      return [
        { origin: ctx.origin, path, method: had ? 'DELETE' : 'PUT', headers, user },
        () => {
          if (had) reacted.delete(key);
          else reacted.add(key);
        },
      ];
    },
    reply() {
      const conversation = pick(chatUsers)?.conversationId;
      if (!conversation) return null;
      const headers = { authorization: `Bearer ${operator.token}`, 'content-type': 'application/json' };
      const body = JSON.stringify({ body: operatorReply(made++) });
      const path = `${OPERATOR_PREFIX}/conversations/${conversation}/reply`;
      // The operator is no user of the fleet: its replies take the first lane.
      return [{ origin: operator.url, path, method: 'POST', headers, body, user: 0 }, () => undefined];
    },
  };

  const write = (kind: Write) => {
    const next = makers[kind]();
    if (!next) return;
    const [request, onOk] = next;
    const sentAt = performance.now();
    const counted = inWindow(ctx.window, sentAt);
    const s = stats[kind];
    if (counted) s.sent++;
    ctx.inFlight.max = Math.max(ctx.inFlight.max, ++ctx.inFlight.now);
    void ctx.http.send(request).then((answer) => {
      ctx.inFlight.now--;
      const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
      if (counted) bump(s.statuses, statusKey(answer.status));
      else if (!ok) s.errorsOutside++;
      if (!ok) return;
      if (counted) recordMs(s.histogram, performance.now() - sentAt);
      onOk(answer.body, sentAt);
    });
  };

  // Evenly spaced, each kind from a random start within its spacing.
  const start = performance.now();
  for (const kind of WRITES) {
    const spacing = 1000 / WRITE_RATES[kind];
    const task = ctx.task((due) => {
      if (!ctx.active()) return;
      ctx.at(due + spacing, task);
      write(kind);
    });
    ctx.at(start + Math.random() * spacing, task);
  }

  return {
    results: (): Record<Write, WriteResult> =>
      perKey(WRITES, (kind) => {
        const { histogram, ...counts } = stats[kind];
        return { ...counts, latency: latencyOf(histogram) };
      }),
    /** How long the window's comments took to reach another user's poll. */
    visibility(): Visibility {
      const delays = posted.flatMap(({ id, at }) => {
        const seen = ctx.seenByOther.get(id);
        return seen === undefined ? [] : [Math.max(0, seen - at)];
      });
      return visibilityOf(delays, posted.length);
    },
  };
}
