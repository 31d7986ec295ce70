import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Notifications } from '../db/notifications.ts';
import { comparePositions, type Position } from '../events/envelope.ts';

/**
 * What the read side's caches key on (decision 022): a stamp per scope of the read tables (a channel's
 * feed, a post's comment thread, a user's own reactions, …; `scopes.ts` names them), moved when a
 * projection's batch that changed that scope commits, here or on another replica. A poll whose scopes
 * have not moved is answered from memory, with no SQL.
 */
export interface ReadChanges {
  /** A token that changes whenever one of the scopes may have changed. */
  of(...scopes: readonly string[]): string;
  /**
   * The same for one scope whose changes may show late (counters): its token follows the scope's but
   * moves at most once per period of `everyMs` of the wall clock (the same periods on every replica).
   */
  lagging(scope: string, everyMs: number): string;
  /** How far this process knows each projection's changes: its own batches and other replicas'. */
  heard(projection: string): Position | null;
  /** True while other replicas' changes are heard (otherwise tokens expire every second). */
  listening(): boolean;
  /** Emits 'heard' (projection, position) after the scopes of a batch up to there have moved. */
  readonly events: EventEmitter<{ heard: [string, Position] }>;
}

export interface ChangeFeed extends ReadChanges {
  /**
   * After a projection's batch committed here: moves its scopes (all scopes when null) and tells the
   * other replicas. `position` is where the projection stands after the batch.
   */
  announce(projection: string, position: Position | null, scopes: readonly string[] | null): void;
  close(): Promise<void>;
}

const CHANNEL = 'read_changes';
/** The least time between two announcements: what comes meanwhile goes in the next one. */
const ANNOUNCE_GAP_MS = 50;
// PostgreSQL refuses a payload of 8,000 bytes or more: a longer list goes as "everything".
const MAX_PAYLOAD = 7_900;
/** Without notifications, a token is trusted for this long. */
const UNHEARD_TRUST_MS = 1_000;
/** Past this many moved scopes, everything is forgotten at once (a new epoch), to bound memory. */
const MAX_SCOPES = 500_000;

const change = z.object({
  p: z.string(),
  at: z.tuple([z.string().regex(/^\d+$/), z.string().regex(/^\d+$/)]).nullable(),
  s: z.array(z.string()).nullable(),
});
/** One notification: the changes of one or more projections since the sender's last. */
const message = z.object({ o: z.string(), c: z.array(change) });
type Change = z.infer<typeof change>;

interface Stamps {
  of(scopes: readonly string[]): string;
  lagging(scope: string, everyMs: number): string;
  move(scopes: readonly string[] | null): void;
  /** Forgets every stamp if the last epoch began `olderThanMs` ago or more. */
  expire(olderThanMs: number): void;
}

/** The stamps themselves: counters in memory, one sequence for all, so no two moves share a value. */
function createStamps(now: () => number): Stamps {
  let epoch = `${randomUUID().slice(0, 8)}.0`;
  let epochs = 0;
  let epochAt = now();
  let sequence = 0;
  const stamps = new Map<string, number>();
  const shown = new Map<string, { stamp: number; period: number }>();
  const renew = () => {
    epochs += 1;
    epoch = `${epoch.split('.')[0] ?? ''}.${epochs}`;
    epochAt = now();
    stamps.clear();
    shown.clear();
  };
  return {
    of(scopes) {
      let token = epoch;
      for (const scope of scopes) token += `.${stamps.get(scope) ?? 0}`;
      return token;
    },
    lagging(scope, everyMs) {
      const stamp = stamps.get(scope) ?? 0;
      const last = shown.get(scope);
      // Periods of the wall clock, the same on every replica: behind a balancer, one client's polls see
      // the counters move at the same instants wherever they land, never back and forth.
      const period = everyMs > 0 ? Math.floor(now() / everyMs) : now();
      if (last === undefined || (last.stamp !== stamp && last.period !== period)) {
        shown.set(scope, { stamp, period });
        return `${epoch}.${stamp}`;
      }
      return `${epoch}.${last.stamp}`;
    },
    move(scopes) {
      if (scopes === null || stamps.size + scopes.length > MAX_SCOPES) {
        renew();
        return;
      }
      sequence += 1;
      for (const scope of scopes) stamps.set(scope, sequence);
    },
    expire(olderThanMs) {
      if (now() - epochAt >= olderThanMs) renew();
    },
  };
}

export interface ChangeFeedOptions {
  /** How the other replicas are heard; without it (tests of one process), only local batches are. */
  readonly notifications?: Notifications;
  readonly logger: Logger;
  readonly now?: () => number;
}

/**
 * Stamps fed by this process's projection batches and, through PostgreSQL `LISTEN read_changes`, by
 * other replicas'. A batch is announced after its commit, with the scopes it changed and where the
 * projection stands; a replica that is not listening (before it connects, after it loses the connection,
 * until it has reconnected by itself) cannot know what changed elsewhere, so it trusts its tokens for at
 * most a second, and starts a new epoch when it hears again.
 */
export function createChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  const { logger } = options;
  const now = options.now ?? Date.now;
  const origin = randomUUID();
  const stamps = createStamps(now);
  const heard = new Map<string, Position>();
  const events = new EventEmitter<{ heard: [string, Position] }>();
  events.setMaxListeners(0);

  const hear = (projection: string, position: Position | null, scopes: readonly string[] | null) => {
    stamps.move(scopes);
    if (position === null) return;
    const known = heard.get(projection);
    // A reload (all scopes) may start again from an earlier place (a development reset): take it as is.
    if (scopes === null || known === undefined || comparePositions(position, known) > 0) {
      heard.set(projection, position);
    }
    events.emit('heard', projection, position);
  };

  const listener = options.notifications
    ? createListener(options.notifications, logger, origin, (c) => {
        const position = c.at ? { commit: BigInt(c.at[0]), prepare: BigInt(c.at[1]) } : null;
        hear(c.p, position, c.s);
      })
    : null;

  const trusted = () => {
    if (listener && !listener.listening()) stamps.expire(UNHEARD_TRUST_MS);
  };

  return {
    events,
    of(...scopes) {
      trusted();
      return stamps.of(scopes);
    },
    lagging(scope, everyMs) {
      trusted();
      return stamps.lagging(scope, everyMs);
    },
    heard: (projection) => heard.get(projection) ?? null,
    listening: () => listener?.listening() ?? false,
    announce(projection, position, scopes) {
      hear(projection, position, scopes);
      listener?.send(projection, position, scopes);
    },
    async close() {
      await listener?.close();
    },
  };
}

interface Listener {
  listening(): boolean;
  send(projection: string, position: Position | null, scopes: readonly string[] | null): void;
  close(): Promise<void>;
}

/** What is waiting to be announced for one projection: its latest position and every scope since. */
interface Pending {
  position: Position | null;
  scopes: Set<string> | null;
}

const EVERYTHING: Change = { p: '', at: null, s: null };

/** The payload for the pending changes; "everything" for each when it would be too long. */
function payloadOf(origin: string, pending: ReadonlyMap<string, Pending>): string {
  const changes = [...pending].map(([p, { position, scopes }]) => ({
    p,
    at: position ? [position.commit.toString(), position.prepare.toString()] : null,
    s: scopes ? [...scopes] : null,
  }));
  const text = JSON.stringify({ o: origin, c: changes });
  if (Buffer.byteLength(text) <= MAX_PAYLOAD) return text;
  return JSON.stringify({ o: origin, c: changes.map((c) => ({ ...c, s: null })) });
}

/**
 * Hears the other replicas on the process's notification connection, and announces: one NOTIFY at a time,
 * carrying everything announced since the last, so a busy runner costs a notification per round trip,
 * not one per batch.
 */
function createListener(
  notifications: Notifications,
  logger: Logger,
  origin: string,
  onChange: (change: Change) => void,
): Listener {
  let closed = false;
  const pending = new Map<string, Pending>();
  let sending = false;

  notifications.listen(
    CHANNEL,
    (payload) => {
      let parsed: z.infer<typeof message>;
      try {
        parsed = message.parse(JSON.parse(payload));
      } catch {
        logger.warn('read changes: unreadable notification; everything may have changed');
        onChange(EVERYTHING);
        return;
      }
      if (parsed.o !== origin) for (const one of parsed.c) onChange(one);
    },
    // What changed while nobody listened is unknown.
    () => {
      onChange(EVERYTHING);
    },
  );

  const drain = async () => {
    if (sending) return;
    sending = true;
    try {
      while (pending.size > 0 && !closed) {
        const payload = payloadOf(origin, pending);
        pending.clear();
        const sent = await notifications.notify(CHANNEL, payload);
        // Lost: the others are told that anything may have changed, once this replica can reach them.
        if (!sent) pending.set('', { position: null, scopes: null });
        await new Promise((resume) => setTimeout(resume, sent ? ANNOUNCE_GAP_MS : 1_000).unref());
      }
    } finally {
      sending = false;
    }
  };

  return {
    listening: () => notifications.listening(),
    send(projection, position, scopes) {
      if (closed) return;
      const waiting = pending.get(projection);
      if (waiting === undefined) {
        pending.set(projection, { position, scopes: scopes ? new Set(scopes) : null });
      } else {
        waiting.position = position ?? waiting.position;
        if (scopes === null) waiting.scopes = null;
        else for (const scope of scopes) waiting.scopes?.add(scope);
      }
      void drain();
    },
    close() {
      closed = true;
      return Promise.resolve();
    },
  };
}
