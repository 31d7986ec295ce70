import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

// Telegram's pace across every replica (decision 025): a chat gets at most one message a second, and a
// 429's retry_after holds the whole bot. Messenger jobs run one at a time (a singleton queue), so reading
// these rows at a job's start and writing them at its end is enough.

const PAUSE_KEY = '';

export interface MessengerPace {
  /** When the bot may send again at all (ms since the epoch; 0: now). */
  readonly pausedUntil: number;
  /** When each of the asked chats may next get a message. */
  readonly chats: ReadonlyMap<string, number>;
}

export async function readMessengerPace(
  db: CommonQueryMethods,
  chatKeys: readonly string[],
): Promise<MessengerPace> {
  const rows = await db.any(sql.type(z.object({ chat_key: z.string(), next_at: z.coerce.date() }))`
    SELECT chat_key, next_at FROM push_messenger_pace
    WHERE chat_key = ANY (${sql.array([PAUSE_KEY, ...chatKeys], 'text')}) AND next_at > now()`);
  const chats = new Map<string, number>();
  let pausedUntil = 0;
  for (const row of rows) {
    if (row.chat_key === PAUSE_KEY) pausedUntil = row.next_at.getTime();
    else chats.set(row.chat_key, row.next_at.getTime());
  }
  return { pausedUntil, chats };
}

/** Records when each chat may next get a message; old rows go on the way. */
export async function recordMessengerSends(
  db: CommonQueryMethods,
  next: ReadonlyMap<string, number>,
): Promise<void> {
  if (next.size === 0) return;
  const keys = [...next.keys()];
  await db.query(sql.unsafe`
    INSERT INTO push_messenger_pace (chat_key, next_at)
    SELECT k, to_timestamp(t / 1000.0)
    FROM unnest(${sql.array(keys, 'text')}, ${sql.array(
      keys.map((k) => next.get(k) ?? 0),
      'float8',
    )}) AS x (k, t)
    ON CONFLICT (chat_key) DO UPDATE SET next_at = GREATEST(push_messenger_pace.next_at, EXCLUDED.next_at)`);
  await db.query(sql.unsafe`
    DELETE FROM push_messenger_pace WHERE next_at < now() - interval '1 minute' AND chat_key <> ${PAUSE_KEY}`);
}

/** Holds the whole bot until `until` (a 429's retry_after), on every replica. */
export async function pauseMessenger(db: CommonQueryMethods, until: number): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO push_messenger_pace (chat_key, next_at) VALUES (${PAUSE_KEY}, to_timestamp(${until} / 1000.0))
    ON CONFLICT (chat_key) DO UPDATE SET next_at = GREATEST(push_messenger_pace.next_at, EXCLUDED.next_at)`);
}

/**
 * Counts a chat's refusal (Telegram 403) in a row; answers how many there have been. A sent message
 * clears the count.
 */
export async function countRefusal(db: CommonQueryMethods, key: string): Promise<number> {
  return db.oneFirst(sql.type(z.object({ refusals: z.number() }))`
    INSERT INTO push_device_refusals (device_key, refusals) VALUES (${key}, 1)
    ON CONFLICT (device_key) DO UPDATE
    SET refusals = push_device_refusals.refusals + 1, updated_at = now()
    RETURNING refusals`);
}

export async function clearRefusals(db: CommonQueryMethods, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.query(sql.unsafe`
    DELETE FROM push_device_refusals WHERE device_key = ANY (${sql.array([...keys], 'text')})`);
}
