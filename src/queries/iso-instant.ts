import { z } from 'zod';

/** A timestamp column as the API gives it: an ISO-8601 instant in UTC. */
export const isoInstant = z.coerce.date().transform((d) => d.toISOString());
