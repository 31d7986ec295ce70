import { type CommonQueryMethods, type IdentifierSqlToken, sql } from 'slonik';
import type { RecordedEvent } from '../events/envelope.ts';

/** The read tables of one generation, as identifiers qualified by that generation's schema. */
export type Tables<Name extends string> = Readonly<Record<Name, IdentifierSqlToken>>;

/**
 * Events -> Postgres read tables (decision 008). Each generation of a
 * projection's tables lives in a schema of its own; the public schema has one view per table pointing
 * at the live generation, which queries read. A rebuild fills a new generation and moves the views.
 */
export interface Projection<Name extends string = string> {
  /** Lower-case letters and underscores: it becomes part of a schema name. */
  readonly name: string;
  /** Bump when the tables or what `apply` writes change; `projections rebuild` then fills new tables. */
  readonly version: number;
  readonly categories: readonly string[];
  readonly tables: readonly Name[];
  /**
   * How long a live read gathers events into one batch (the store's default, 25 ms, when absent): longer
   * for high-volume events whose readers can wait, each batch being a transaction (decision 022).
   */
  readonly gatherMs?: number;
  /**
   * Event types of its categories whose personal fields `apply` never reads: they come unopened, as
   * null (decision 048), which spares the projection opening what it would not use.
   */
  readonly unopened?: readonly string[];
  /** Creates the tables (and their indexes) in an empty schema. */
  createTables(db: CommonQueryMethods, tables: Tables<Name>): Promise<void>;
  /**
   * Applies a batch of events, in log order, inside the batch's transaction, with the same effect as
   * applying them one by one (a batch of one is how the runner finds the event a failed batch stumbled
   * on). Batches let a projection write many events in a few statements: catching up on a long log is
   * bounded by round trips, not by the database.
   */
  apply(db: CommonQueryMethods, events: readonly RecordedEvent[], tables: Tables<Name>): Promise<void>;
  /**
   * The scopes (`scopes.ts`) the batch changed for clients, found in the batch's transaction after
   * `apply`: the caches of what clients poll key on them (decision 022). Absent when clients poll none
   * of the projection's tables.
   */
  changes?(
    db: CommonQueryMethods,
    events: readonly RecordedEvent[],
    tables: Tables<Name>,
  ): Promise<readonly string[]> | readonly string[];
}

const namePattern = /^[a-z][a-z0-9_]{0,40}$/;

export function generationSchema(projection: Pick<Projection, 'name'>, generation: number): string {
  if (!namePattern.test(projection.name)) throw new Error(`invalid projection name '${projection.name}'`);
  return `projection_${projection.name}_g${generation}`;
}

export function tablesOf<Name extends string>(
  projection: Projection<Name>,
  generation: number,
): Tables<Name> {
  const schema = generationSchema(projection, generation);
  return Object.fromEntries(projection.tables.map((t) => [t, sql.identifier([schema, t])])) as Tables<Name>;
}

/** Creates the schema and tables of a generation (nothing if they exist already). */
export async function createGeneration(
  db: CommonQueryMethods,
  projection: Projection,
  generation: number,
): Promise<void> {
  const schema = generationSchema(projection, generation);
  const exists = await db.exists(sql.unsafe`SELECT 1 FROM pg_namespace WHERE nspname = ${schema}`);
  if (exists) return;
  await db.query(sql.unsafe`CREATE SCHEMA ${sql.identifier([schema])}`);
  await projection.createTables(db, tablesOf(projection, generation));
}

/** Points the public views at a generation's tables. */
export async function pointViewsAt(
  db: CommonQueryMethods,
  projection: Projection,
  generation: number,
): Promise<void> {
  const schema = generationSchema(projection, generation);
  for (const table of projection.tables) {
    // Dropped and created rather than replaced: a new generation may have other columns.
    await db.query(sql.unsafe`DROP VIEW IF EXISTS ${sql.identifier([table])}`);
    await db.query(
      sql.unsafe`CREATE VIEW ${sql.identifier([table])} AS SELECT * FROM ${sql.identifier([schema, table])}`,
    );
  }
}

export async function dropGeneration(
  db: CommonQueryMethods,
  projection: Projection,
  generation: number,
): Promise<void> {
  const schema = generationSchema(projection, generation);
  await db.query(sql.unsafe`DROP SCHEMA IF EXISTS ${sql.identifier([schema])} CASCADE`);
}
