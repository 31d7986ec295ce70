import { type CommonQueryMethods, sql } from 'slonik';
import type { RecordedEvent } from '../../src/events/envelope.ts';
import type { Projection, Tables } from '../../src/projections/projection.ts';

export interface TallyOptions {
  readonly name: string;
  readonly category: string;
  /** Throws on events of this type: a projection with a bug. */
  readonly poisonType?: string;
  /** Called inside the batch's transaction after its rows are written, before it commits. */
  readonly afterWrite?: (db: CommonQueryMethods, events: readonly RecordedEvent[]) => Promise<void>;
}

/**
 * A test projection that counts how often each event was applied: a table where every count is 1 is
 * what "exactly once" looks like. Its one table (and the public view of it) is `<name>_tally`.
 */
export function tallyProjection(options: TallyOptions): Projection {
  const table = `${options.name}_tally`;
  const identifier = (tables: Tables<string>) => {
    const found = tables[table];
    if (!found) throw new Error(`no table ${table}`);
    return found;
  };
  return {
    name: options.name,
    version: 1,
    categories: [options.category],
    tables: [table],
    async createTables(db, tables) {
      await db.query(sql.unsafe`
        CREATE TABLE ${identifier(tables)} (event_id uuid PRIMARY KEY, type text NOT NULL, applied int NOT NULL)`);
    },
    async apply(db, events, tables) {
      const poison = events.find((e) => e.type === options.poisonType);
      if (poison) throw new Error(`cannot apply ${poison.type}`);
      const ids = sql.array(
        events.map((e) => e.id),
        'uuid',
      );
      const types = sql.array(
        events.map((e) => e.type),
        'text',
      );
      await db.query(sql.unsafe`
        INSERT INTO ${identifier(tables)} AS t (event_id, type, applied)
        SELECT id, type, 1 FROM unnest(${ids}, ${types}) AS x (id, type)
        ON CONFLICT (event_id) DO UPDATE SET applied = t.applied + 1`);
      await options.afterWrite?.(db, events);
    },
  };
}
