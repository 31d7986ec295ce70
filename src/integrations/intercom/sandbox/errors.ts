import { randomUUID } from 'node:crypto';
import type { ZodSafeParseResult } from 'zod';

/** A refusal in Intercom's terms: the HTTP status and the `code` of its error list. */
export class IntercomError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'IntercomError';
    this.status = status;
    this.code = code;
  }
}

export interface ErrorList {
  readonly type: 'error.list';
  readonly request_id: string;
  readonly errors: readonly { readonly code: string; readonly message: string }[];
}

export function errorList(code: string, message: string, requestId: string = randomUUID()): ErrorList {
  return { type: 'error.list', request_id: requestId, errors: [{ code, message }] };
}

export const notFound = (message = 'Resource Not Found'): IntercomError =>
  new IntercomError(404, 'not_found', message);

export const invalid = (message: string): IntercomError =>
  new IntercomError(400, 'parameter_invalid', message);

/** Parses a request body or parameter with zod; a mismatch is Intercom's 400 `parameter_invalid`. */
export function parse<T>(schema: { safeParse(value: unknown): ZodSafeParseResult<T> }, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw invalid(`${where}${issue?.message ?? 'invalid request'}`);
}
