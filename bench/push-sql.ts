import type pg from 'pg';

/** pg_stat_statements of the service's database: calls and execution time of each normalised statement. */
export type StatementTimes = ReadonlyMap<
  string,
  { readonly query: string; readonly calls: number; readonly ms: number }
>;

export async function readStatementTimes(client: pg.Client): Promise<StatementTimes> {
  const { rows } = await client.query<{ id: string; query: string; calls: string; ms: number }>(
    `SELECT queryid::text AS id, query, calls::text AS calls, total_exec_time AS ms FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND query NOT LIKE '%pg_stat_statements%'`,
  );
  return new Map(rows.map((r) => [r.id, { query: r.query, calls: Number(r.calls), ms: r.ms }]));
}

export interface StatementUse {
  readonly query: string;
  readonly calls: number;
  /** Execution time inside PostgreSQL, summed over the calls (planning and round trips not included). */
  readonly ms: number;
}

export interface StatementWindow {
  readonly total: number;
  readonly totalMs: number;
  /** The most called statements, most first (whitespace folded, cut at 160 characters). */
  readonly top: readonly StatementUse[];
  /** The statements that took the most execution time, most first. */
  readonly slowest: readonly StatementUse[];
}

export function statementWindow(
  before: StatementTimes,
  after: StatementTimes,
  topCount = 12,
): StatementWindow {
  const moved = [...after]
    .map(([id, { query, calls, ms }]) => ({
      query: query.replace(/\s+/g, ' ').trim().slice(0, 160),
      calls: calls - (before.get(id)?.calls ?? 0),
      ms: ms - (before.get(id)?.ms ?? 0),
    }))
    .filter((r) => r.calls > 0);
  return {
    total: moved.reduce((sum, r) => sum + r.calls, 0),
    totalMs: moved.reduce((sum, r) => sum + r.ms, 0),
    top: [...moved].sort((a, b) => b.calls - a.calls).slice(0, topCount),
    slowest: [...moved].sort((a, b) => b.ms - a.ms).slice(0, 6),
  };
}
