import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

const statusRow = z.object({
  name: z.string(),
  active_generation: z.number(),
  status: z.string(),
  events_applied: z.coerce.number(),
  failed_event_id: z.string().nullable(),
  error: z.string().nullable(),
});
export type ProjectionStatus = z.infer<typeof statusRow>;

/** Every projection that has run: its live generation, how far it got, and why it stopped if it did. */
export async function projectionStatuses(db: CommonQueryMethods): Promise<readonly ProjectionStatus[]> {
  return db.any(sql.type(statusRow)`
    SELECT p.name, p.active_generation, p.status, c.events_applied, p.failed_event_id, p.error
    FROM projections p
    JOIN projection_checkpoints c ON c.name = p.name AND c.generation = p.active_generation
    ORDER BY p.name`);
}

/**
 * Which of these projections stopped on an event they cannot apply (whichever replica runs them). A
 * projection no longer in the code keeps its row, but is not asked about.
 */
export async function failedProjections(
  db: CommonQueryMethods,
  names: readonly string[],
): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ name: z.string() }))`
    SELECT name FROM projections WHERE status = 'failed' AND name = ANY (${sql.array([...names], 'text')})
    ORDER BY name`);
}
