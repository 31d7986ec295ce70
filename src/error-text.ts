/**
 * What may be stored or shown about an error (a failed projection's row, a dead letter): its name and
 * message, shortened. Never the error's other fields, which for a database error hold the query's values.
 */
export const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 500) : 'unknown error';
