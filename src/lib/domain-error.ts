/**
 * A request refused by the domain (a command, an account rule, a record the caller does not own). `kind` says what sort of refusal it is (the HTTP layer maps it to a
 * status); `code` is the stable machine string of API.md (`conflict`, `already_rated`, `user_banned`, …).
 */
export class DomainError extends Error {
  readonly kind: 'invalid_transition' | 'forbidden' | 'not_found';
  readonly code: string;
  /** Extension members of the problem (API.md: `user_banned` carries `until`). */
  readonly extensions: ProblemExtensions;
  constructor(kind: DomainError['kind'], code: string, message: string, extensions: ProblemExtensions = {}) {
    super(message);
    this.name = 'DomainError';
    this.kind = kind;
    this.code = code;
    this.extensions = extensions;
  }
}

export interface ProblemExtensions {
  /** When a ban ends; null for a ban until lifted. */
  readonly until?: string | null;
}

export const invalidTransition = (message: string, code = 'conflict') =>
  new DomainError('invalid_transition', code, message);
export const forbidden = (message: string, code = 'forbidden') => new DomainError('forbidden', code, message);
export const notFound = (message: string) => new DomainError('not_found', 'not_found', message);
