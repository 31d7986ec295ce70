import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { type DeliveryOutcome, deliveryOutcomes } from '../lib/push-vocabulary.ts';
import { categoryOf, pushCategories, type PushContent } from './content.ts';

// What happened to each push the service wanted to send (its source), and to each of its devices: ids,
// categories and outcomes, never a title, a body or a token.

/**
 * A source's own outcome: `queued` for delivery, or skipped as a whole: `not_configured` (no push
 * service runs), `no_device` (the user has none).
 */
export type SourceOutcome = 'queued' | 'not_configured' | 'no_device';

// Shared with the user export, which may not import this layer.
export { type DeliveryOutcome, deliveryOutcomes };

export interface PushSource {
  readonly sourceId: string;
  readonly content: PushContent;
  /** The one user of a reply; null for a post or notice. */
  readonly userId: string | null;
}

/** Records a source once; answers false when it was recorded before (a redelivered webhook, a re-run). */
export async function recordSource(
  db: CommonQueryMethods,
  source: PushSource,
  outcome: SourceOutcome,
): Promise<boolean> {
  const { content } = source;
  const kind = content.kind === 'chat' || content.kind === 'ticket' ? 'reply' : content.kind;
  const added = await db.maybeOneFirst(sql.type(z.object({ added: z.boolean() }))`
    INSERT INTO push_log (source_id, user_id, category, kind, conversation_id, ticket_id, csat, post_id,
      notice_id, outcome)
    VALUES (${source.sourceId}, ${source.userId}, ${categoryOf(content)}, ${kind},
      ${content.kind === 'chat' ? content.conversationId : null},
      ${content.kind === 'ticket' ? content.ticketId : null},
      ${content.kind === 'ticket' && content.csat},
      ${content.kind === 'post' ? content.postId : null},
      ${content.kind === 'notice' ? content.noticeId : null}, ${outcome})
    ON CONFLICT (source_id) DO NOTHING
    RETURNING true AS added`);
  return added === true;
}

/** Where a source's fan-out stands: the last user it queued, and whether it is done. */
export async function fanoutProgress(
  db: CommonQueryMethods,
  sourceId: string,
): Promise<{ readonly cursorUserId: string | null; readonly done: boolean }> {
  const row = await db.maybeOne(sql.type(
    z.object({ cursor_user_id: z.string().nullable(), done: z.boolean() }),
  )`
    SELECT cursor_user_id, fanned_out_at IS NOT NULL AS done FROM push_log WHERE source_id = ${sourceId}`);
  return { cursorUserId: row?.cursor_user_id ?? null, done: row?.done ?? false };
}

export async function advanceFanout(
  db: CommonQueryMethods,
  sourceId: string,
  cursorUserId: string | null,
  done: boolean,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE push_log SET cursor_user_id = COALESCE(${cursorUserId}, cursor_user_id),
      fanned_out_at = CASE WHEN ${done} THEN now() ELSE fanned_out_at END
    WHERE source_id = ${sourceId}`);
}

export async function setSourceOutcome(
  db: CommonQueryMethods,
  sourceId: string,
  outcome: SourceOutcome,
): Promise<void> {
  await db.query(sql.unsafe`UPDATE push_log SET outcome = ${outcome} WHERE source_id = ${sourceId}`);
}

export interface NewDelivery {
  readonly key: string;
  readonly userId: string;
  readonly platform: 'mobile' | 'tma';
  readonly outcome: DeliveryOutcome;
}

const text = (values: readonly string[]) => sql.array([...values], 'text');

const recorded = z.object({ platform: z.enum(['mobile', 'tma']), outcome: z.enum(deliveryOutcomes) });

/**
 * Records deliveries; a (source, device) recorded before keeps its row and outcome. Answers the ones
 * recorded now.
 */
export async function recordDeliveries(
  db: CommonQueryMethods,
  sourceId: string,
  deliveries: readonly NewDelivery[],
): Promise<readonly z.infer<typeof recorded>[]> {
  if (deliveries.length === 0) return [];
  return db.any(sql.type(recorded)`
    INSERT INTO push_deliveries (source_id, device_key, user_id, platform, outcome)
    SELECT ${sourceId}, k, u, p, o
    FROM unnest(${text(deliveries.map((d) => d.key))}, ${text(deliveries.map((d) => d.userId))},
      ${text(deliveries.map((d) => d.platform))}, ${text(deliveries.map((d) => d.outcome))}) AS x (k, u, p, o)
    ON CONFLICT (source_id, device_key) DO NOTHING
    RETURNING platform, outcome`);
}

/** Of these devices, the ones whose delivery of this source is still to be sent. */
export async function stillQueued(
  db: CommonQueryMethods,
  sourceId: string,
  keys: readonly string[],
): Promise<ReadonlySet<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.anyFirst(sql.type(z.object({ device_key: z.string() }))`
    SELECT device_key FROM push_deliveries
    WHERE source_id = ${sourceId} AND device_key = ANY (${text(keys)}) AND outcome = 'queued'`);
  return new Set(rows);
}

/** Drops these devices' deliveries of a source while they are still queued: they will not be sent. */
export async function dropQueuedDeliveries(
  db: CommonQueryMethods,
  sourceId: string,
  keys: readonly string[],
): Promise<void> {
  if (keys.length === 0) return;
  await db.query(sql.unsafe`
    DELETE FROM push_deliveries
    WHERE source_id = ${sourceId} AND device_key = ANY (${text(keys)}) AND outcome = 'queued'`);
}

export interface Settled {
  readonly key: string;
  readonly outcome: DeliveryOutcome;
  readonly code: string | null;
}

/**
 * Records what became of each device's send (still `queued` when it will be tried again): one statement per
 * outcome and code, each finding its rows by the primary key, so its cost is the batch's, not the
 * broadcast's (a join on a list of keys was planned as a scan of every delivery of the source).
 */
export async function settleDeliveries(
  db: CommonQueryMethods,
  sourceId: string,
  settled: readonly Settled[],
): Promise<void> {
  const groups = new Map<string, { outcome: DeliveryOutcome; code: string | null; keys: string[] }>();
  for (const { key, outcome, code } of settled) {
    const name = `${outcome}\u0000${code ?? ''}`;
    const group = groups.get(name) ?? { outcome, code, keys: [] };
    group.keys.push(key);
    groups.set(name, group);
  }
  for (const { outcome, code, keys } of groups.values()) {
    await db.query(sql.unsafe`
      UPDATE push_deliveries SET outcome = ${outcome}, code = ${code}, attempts = attempts + 1, updated_at = now()
      WHERE source_id = ${sourceId} AND device_key = ANY (${text(keys)})`);
  }
}

/** Counts of a source's deliveries by outcome: a broadcast's progress. */
export async function deliveryCounts(
  db: CommonQueryMethods,
  sourceId: string,
): Promise<Readonly<Record<DeliveryOutcome, number>>> {
  const rows = await db.any(sql.type(z.object({ outcome: z.enum(deliveryOutcomes), n: z.coerce.number() }))`
    SELECT outcome, count(*) AS n FROM push_deliveries WHERE source_id = ${sourceId} GROUP BY outcome`);
  const counts = Object.fromEntries(deliveryOutcomes.map((o) => [o, 0])) as Record<DeliveryOutcome, number>;
  for (const row of rows) counts[row.outcome] = row.n;
  return counts;
}

/** The fan-out of a source, as admins see it. */
export async function sourceState(
  db: CommonQueryMethods,
  sourceId: string,
): Promise<{ readonly outcome: string; readonly fannedOut: boolean } | null> {
  const row = await db.maybeOne(sql.type(z.object({ outcome: z.string(), done: z.boolean() }))`
    SELECT outcome, fanned_out_at IS NOT NULL AS done FROM push_log WHERE source_id = ${sourceId}`);
  return row === null ? null : { outcome: row.outcome, fannedOut: row.done };
}

const pushRow = z.object({
  id: z.string(),
  source_id: z.string(),
  user_id: z.string().nullable(),
  category: z.enum(pushCategories),
  kind: z.string(),
  conversation_id: z.string().nullable(),
  ticket_id: z.string().nullable(),
  post_id: z.string().nullable(),
  notice_id: z.string().nullable(),
  csat: z.boolean(),
  platform: z.enum(['mobile', 'tma']).nullable(),
  device_key: z.string().nullable(),
  outcome: z.string(),
  code: z.string().nullable(),
  attempts: z.number(),
  created_at: z.coerce.date(),
});
export type PushLogRow = z.infer<typeof pushRow>;

/**
 * The newest pushes first: one row per device reached (or skipped), and one per source that reached no
 * device at all.
 */
export async function latestPushes(db: CommonQueryMethods, limit: number): Promise<readonly PushLogRow[]> {
  return db.any(sql.type(pushRow)`
    SELECT l.id::text || COALESCE(':' || d.device_key, '') AS id, l.source_id,
      COALESCE(d.user_id, l.user_id) AS user_id, l.category, l.kind, l.conversation_id, l.ticket_id,
      l.post_id, l.notice_id, l.csat, d.platform, d.device_key, COALESCE(d.outcome, l.outcome) AS outcome,
      d.code, COALESCE(d.attempts, 0) AS attempts, COALESCE(d.updated_at, l.created_at) AS created_at
    FROM push_log l LEFT JOIN push_deliveries d ON d.source_id = l.source_id
    ORDER BY COALESCE(d.updated_at, l.created_at) DESC, l.id DESC, d.device_key
    LIMIT ${limit}`);
}

/**
 * Forgets pushes recorded before `before`. Their source ids made dispatch idempotent; after the webhook
 * inbox's own retention a redelivery would be processed again anyway, so the two keep the same horizon.
 */
export async function deletePushesBefore(db: CommonQueryMethods, before: Date): Promise<number> {
  await db.query(sql.unsafe`
    DELETE FROM push_deliveries d USING push_log l
    WHERE d.source_id = l.source_id AND l.created_at < ${before.toISOString()}::timestamptz`);
  const result = await db.query(sql.unsafe`
    DELETE FROM push_log WHERE created_at < ${before.toISOString()}::timestamptz`);
  return result.rowCount;
}

/** How far a push to many has got, as admins see it: `waiting` until its fan-out has started. */
export interface PushProgress {
  readonly state: 'waiting' | 'fanning_out' | 'done';
  readonly devices: {
    readonly queued: number;
    readonly sent: number;
    readonly failed: number;
    readonly refused: number;
    readonly removed: number;
    readonly muted: number;
    readonly online: number;
    readonly notConfigured: number;
  };
}

export async function pushProgress(db: CommonQueryMethods, sourceId: string): Promise<PushProgress> {
  const state = await sourceState(db, sourceId);
  const counts = await deliveryCounts(db, sourceId);
  return {
    state: state === null ? 'waiting' : state.fannedOut ? 'done' : 'fanning_out',
    devices: {
      queued: counts.queued,
      sent: counts.sent,
      failed: counts.failed,
      refused: counts.refused,
      removed: counts.removed,
      muted: counts.muted,
      online: counts.online,
      notConfigured: counts.not_configured,
    },
  };
}
