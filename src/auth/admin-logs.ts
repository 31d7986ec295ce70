import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../db/pool.ts';

export const auditOutcomes = ['success', 'failed', 'denied', 'locked', 'error'] as const;
export type AuditOutcome = (typeof auditOutcomes)[number];

/** Non-secret facts about an action: field names, roles, kinds. Never a password, token or body. */
export type AuditDetail = Readonly<Record<string, string | number | boolean | readonly string[]>>;

export interface AuditEntry {
  readonly adminId: string | null;
  readonly action: string;
  readonly target: { readonly type: string; readonly id: string } | null;
  readonly clientIp: string;
  readonly outcome: AuditOutcome;
  readonly statusCode: number;
  readonly correlationId: string;
  readonly detail: AuditDetail;
}

export async function appendAdminLog(pool: DatabasePool, entry: AuditEntry): Promise<void> {
  await pool.query(sql.unsafe`
    INSERT INTO admin_logs
      (admin_id, action, target_type, target_id, client_ip, outcome, status_code, correlation_id, detail)
    VALUES (${entry.adminId}, ${entry.action}, ${entry.target?.type ?? null}, ${entry.target?.id ?? null},
      ${entry.clientIp}, ${entry.outcome}, ${entry.statusCode}, ${entry.correlationId},
      ${sql.jsonb(entry.detail)})`);
}

const logRow = z.object({
  id: z.coerce.string(),
  at: z.coerce.date(),
  admin_id: z.string().nullable(),
  action: z.string(),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  client_ip: z.string(),
  outcome: z.enum(auditOutcomes),
  status_code: z.number(),
  correlation_id: z.string(),
  detail: z.record(z.string(), z.unknown()),
});
export type AdminLogRow = z.infer<typeof logRow>;

export interface AuditFilter {
  readonly adminId?: string | undefined;
  readonly action?: string | undefined;
  readonly targetId?: string | undefined;
  readonly outcome?: AuditOutcome | undefined;
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
}

export interface AdminLogPage {
  readonly items: readonly AdminLogRow[];
  /** The id of the last item when there may be more. */
  readonly before: string | null;
}

/** Newest first; `before` continues after the entry with that id. `to` is exclusive. */
export async function listAdminLogs(
  pool: DatabasePool,
  filter: AuditFilter,
  limit: number,
  before: string | null,
): Promise<AdminLogPage> {
  const conditions = [
    before === null ? null : sql.fragment`id < ${before}`,
    filter.adminId === undefined ? null : sql.fragment`admin_id = ${filter.adminId}`,
    filter.action === undefined ? null : sql.fragment`action = ${filter.action}`,
    filter.targetId === undefined ? null : sql.fragment`target_id = ${filter.targetId}`,
    filter.outcome === undefined ? null : sql.fragment`outcome = ${filter.outcome}`,
    filter.from === undefined ? null : sql.fragment`at >= ${filter.from.toISOString()}::timestamptz`,
    filter.to === undefined ? null : sql.fragment`at < ${filter.to.toISOString()}::timestamptz`,
  ].filter((c) => c !== null);
  const where = conditions.length === 0 ? sql.fragment`true` : sql.join(conditions, sql.fragment` AND `);
  const rows = await pool.any(sql.type(logRow)`
    SELECT id, at, admin_id, action, target_type, target_id, client_ip, outcome, status_code,
      correlation_id, detail
    FROM admin_logs WHERE ${where} ORDER BY id DESC LIMIT ${limit + 1}`);
  const items = rows.slice(0, limit);
  return { items, before: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
}
