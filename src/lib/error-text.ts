/**
 * An error's message without the data a database quoted into it. PostgreSQL's data exceptions (SQLSTATE
 * class 22: "invalid input syntax for type uuid: "…"", "value "…" is out of range") quote the offending
 * value, which may be a token or a comment's text; other messages quote only names (relations,
 * constraints), which help and are kept.
 */
export function safeMessage(error: Error & { code?: unknown; cause?: unknown }): string {
  const isDataException = (code: unknown) => typeof code === 'string' && code.startsWith('22');
  // slonik wraps some of them (InvalidInputError) without the code; the driver's error is its cause.
  const cause: unknown = error.cause;
  const causeCode = typeof cause === 'object' && cause !== null && 'code' in cause ? cause.code : undefined;
  const dataException =
    isDataException(error.code) || isDataException(causeCode) || error.name === 'InvalidInputError';
  return dataException ? error.message.replace(/"[^"]*"/g, '"[redacted]"') : error.message;
}

/**
 * What may be stored or shown about an error (a failed projection's row, a dead letter): its name and
 * message, shortened. Never the error's other fields, which for a database error hold the query's values.
 */
export const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${safeMessage(error)}`.slice(0, 500) : 'unknown error';
