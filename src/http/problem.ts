import { z } from 'zod';

/** RFC 9457 problem details, as API.md fixes them. */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z
      .string()
      .describe('A stable machine string to branch on; each error response lists the codes of its status'),
    detail: z.string().optional().describe('For people: may change wording at any time'),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    until: z.iso
      .datetime()
      .nullable()
      .optional()
      .describe('`user_banned`: when the ban ends; null when it lasts until lifted'),
  })
  .meta({ id: 'Problem' });

export type Problem = z.infer<typeof problemSchema>;
export type FieldError = NonNullable<Problem['errors']>[number];

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function problem(
  status: number,
  code: string,
  detail?: string,
  errors?: FieldError[],
  extensions: Pick<Problem, 'until'> = {},
): Problem {
  return {
    type: `https://errors.support-channel.dev/${code}`,
    title: titles[status] ?? 'Error',
    status,
    code,
    ...(detail === undefined ? {} : { detail }),
    ...(errors === undefined ? {} : { errors }),
    ...extensions,
  };
}

/** Thrown by handlers and hooks; the error handler turns it into problem+json. */
export class HttpProblem extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly detail: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly errors: FieldError[] | undefined;
  constructor(
    status: number,
    code: string,
    detail?: string,
    headers: Record<string, string> = {},
    errors?: FieldError[],
  ) {
    super(detail ?? code);
    this.name = 'HttpProblem';
    this.statusCode = status;
    this.code = code;
    this.detail = detail;
    this.headers = headers;
    this.errors = errors;
  }
}

export const unauthenticated = () => new HttpProblem(401, 'unauthenticated');
