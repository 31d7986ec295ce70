import type { Schemas } from './client.ts';

export type Problem = Schemas['Problem'];

/** What openapi-fetch answers: `data` on a 2xx, `error` (the parsed body) otherwise. */
export interface Answer<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

/** A refusal of the API, as its problem+json said it (RFC 9457). */
export class ApiProblem extends Error {
  readonly problem: Problem;
  /** `Retry-After` in seconds, when the answer had one (a locked login, a rate limit). */
  readonly retryAfterSeconds: number | null;

  constructor(problem: Problem, retryAfterSeconds: number | null) {
    super(problem.detail ?? problem.title);
    this.name = 'ApiProblem';
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  get code(): string {
    return this.problem.code;
  }
}

function isProblem(body: unknown): body is Problem {
  if (typeof body !== 'object' || body === null) return false;
  const { code, status, title } = body as Record<string, unknown>;
  return typeof code === 'string' && typeof status === 'number' && typeof title === 'string';
}

function retryAfterOf(response: Response): number | null {
  const seconds = Number(response.headers.get('retry-after') ?? Number.NaN);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/** The problem an answer carries; a body that is not one (a proxy's page) becomes a plain one. */
export function problemOf(answer: Answer<unknown>): ApiProblem {
  const { response, error } = answer;
  const problem: Problem = isProblem(error)
    ? error
    : {
        type: 'about:blank',
        title: response.statusText || 'Error',
        status: response.status,
        code: 'unexpected_answer',
        detail: `The service answered ${response.status}.`,
      };
  return new ApiProblem(problem, retryAfterOf(response));
}

/** The answer's data, or its problem thrown. */
export function unwrap<T>(answer: Answer<T>): T {
  if (answer.response.ok && answer.error === undefined) return answer.data as T;
  throw problemOf(answer);
}

/** What a page shows for an error of any kind. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiProblem) return error.problem.detail ?? error.problem.title;
  // fetch rejects with a TypeError when the service cannot be reached at all.
  if (error instanceof TypeError) return 'The service could not be reached. Check the connection and retry.';
  return 'Something went wrong.';
}

/**
 * A validation problem's field errors, by the form field they name: `body.commentRate.burst` is the
 * `commentRate.burst` field's if the form has one, else `commentRate`'s. Errors of no field of the form
 * go under `''`. A filter's errors are its query's: `where` is then `'querystring'`.
 */
export function fieldErrorsOf(
  error: unknown,
  fields: readonly string[],
  where: 'body' | 'querystring' = 'body',
): ReadonlyMap<string, string[]> {
  const byField = new Map<string, string[]>();
  if (!(error instanceof ApiProblem)) return byField;
  for (const { path, message } of error.problem.errors ?? []) {
    const inBody = path.startsWith(`${where}.`) ? path.slice(`${where}.`.length) : null;
    const field =
      inBody === null
        ? ''
        : fields
            .filter((name) => inBody === name || inBody.startsWith(`${name}.`))
            .reduce((longest, name) => (name.length > longest.length ? name : longest), '');
    // Two rules of one field may say the same thing (a pattern and a refinement): once is enough.
    const messages = byField.get(field) ?? [];
    if (!messages.includes(message)) byField.set(field, [...messages, message]);
  }
  return byField;
}
