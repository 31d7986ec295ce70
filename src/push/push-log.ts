import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { pushCategories, type PushRequest } from './dispatcher.ts';

// What happened to each push the service wanted to send: ids and categories, never a title or body.

/** `not_configured`: no push service is set up; `muted`: the user turned the category off. */
export type PushOutcome = 'not_configured' | 'muted';

/** Records a push once per source id; answers false when that source was recorded before. */
export async function recordPush(
  db: CommonQueryMethods,
  request: PushRequest,
  outcome: PushOutcome,
): Promise<boolean> {
  const added = await db.maybeOneFirst(sql.type(z.object({ added: z.boolean() }))`
    INSERT INTO push_log (source_id, user_id, category, conversation_id, ticket_id, csat, outcome)
    VALUES (${request.sourceId}, ${request.userId}, ${request.category}, ${request.conversationId ?? null},
      ${request.ticketId ?? null}, ${request.csat ?? false}, ${outcome})
    ON CONFLICT (source_id) DO NOTHING
    RETURNING true AS added`);
  return added === true;
}

const pushRow = z.object({
  id: z.coerce.string(),
  user_id: z.string(),
  category: z.enum(pushCategories),
  conversation_id: z.string().nullable(),
  ticket_id: z.string().nullable(),
  csat: z.boolean(),
  outcome: z.string(),
  created_at: z.coerce.date(),
});
export type PushLogRow = z.infer<typeof pushRow>;

/** The newest pushes first. */
export async function latestPushes(db: CommonQueryMethods, limit: number): Promise<readonly PushLogRow[]> {
  return db.any(sql.type(pushRow)`
    SELECT id, user_id, category, conversation_id, ticket_id, csat, outcome, created_at
    FROM push_log ORDER BY created_at DESC, id DESC LIMIT ${limit}`);
}

/**
 * Forgets pushes recorded before `before`. Their source ids made dispatch idempotent; after the webhook
 * inbox's own retention a redelivery would be processed again anyway, so the two keep the same horizon.
 */
export async function deletePushesBefore(db: CommonQueryMethods, before: Date): Promise<number> {
  const result = await db.query(sql.unsafe`
    DELETE FROM push_log WHERE created_at < ${before.toISOString()}::timestamptz`);
  return result.rowCount;
}
