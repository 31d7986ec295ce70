import { describe, expect, it } from 'vitest';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { commentAs, openReportOf, reportComment } from '../support/comments.ts';
import { sessionToken } from '../support/jwt.ts';
import {
  type JsonSchema,
  type FormPart,
  type Mutation,
  multipartBytes,
  type OpenApiDocument,
  type Operation,
  operationsOf,
  resolver,
  sample,
  stringMutations,
  stringPaths,
  withPath,
} from '../support/openapi-fuzz.ts';
import { postThrough } from '../support/posts.ts';

/**
 * Walks the served OpenAPI document and, for every operation, breaks one declared input at a time (path
 * and query parameters, headers, body fields): NUL, lone surrogates, control characters, over-long
 * strings, wrong types, missing required fields. With a valid session or admin token and real ids, so
 * the broken input reaches the handler. No answer may be a 5xx, every refusal is problem+json, and text
 * the shared rule refuses (NUL, lone surrogates) is never accepted.
 */

const used = useRunningApp({ env: { ENABLE_DEVTOOLS: '1' } });
const url = () => used.running.url;
const USER = 'fuzz-user';

interface Outcome {
  readonly request: string;
  readonly status: number;
  readonly type: string;
}

interface Fixture {
  readonly session: string;
  readonly admin: string;
  readonly ids: Record<string, string>;
}

async function seed(): Promise<Fixture> {
  const owner = await createTestAdmin(used.db.pool, 'owner');
  const other = await createTestAdmin(used.db.pool, 'moderator', 'fuzz-target');
  const admin = await loginToken(url(), owner);
  const channel = await adminCall(url(), admin, 'POST', '/admin/channels', { title: 'Fuzz' });
  const channelId = (channel.body as { id: string }).id;
  const postId = await postThrough(url(), admin, channelId, ['publish']);
  const comment = await commentAs(url(), channelId, postId, 'A plain comment', USER);
  await reportComment(url(), channelId, postId, comment.id, 'reporter');
  const reportId = await openReportOf(url(), admin, comment.id);
  const reason = await adminCall(url(), admin, 'POST', '/admin/reasons', {
    kind: 'support',
    title: 'Off topic',
  });
  const session = sessionToken(TEST_SECRETS.JWT_SECRET, USER);
  const conversation = await fetch(`${url()}/api/conversations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'Hello' }),
  });
  const conversationId = ((await conversation.json()) as { conversationId: string }).conversationId;
  return {
    session,
    admin,
    ids: {
      channelId,
      postId,
      commentId: comment.id,
      reportId,
      adminId: other.id,
      reasonId: (reason.body as { id?: string } | null)?.id ?? '00000000-0000-4000-8000-000000000000',
      conversationId,
    },
  };
}

/** A real id for each path parameter, so that a broken input elsewhere reaches the handler. */
function paramValue(path: string, name: string, ids: Record<string, string>): string {
  const fixed: Record<string, string | undefined> = {
    postId: ids.postId,
    commentId: ids.commentId,
    emoji: encodeURIComponent('👍'),
    userId: 'someone',
    buttonId: 'b1',
    attachmentId: '00000000-0000-4000-8000-000000000000',
  };
  if (name !== 'id') return fixed[name] ?? 'x';
  const byPrefix: [string, string | undefined][] = [
    ['/api/channel/', ids.channelId],
    ['/admin/channels/', ids.channelId],
    ['/admin/comments/', ids.commentId],
    ['/admin/admins/', ids.adminId],
    ['/admin/reasons/', ids.reasonId],
    ['/admin/reports/', ids.reportId],
    ['/api/conversations/', ids.conversationId],
    ['/api/tickets/', '1'],
  ];
  return byPrefix.find(([prefix]) => path.startsWith(prefix))?.[1] ?? '00000000-0000-4000-8000-000000000000';
}

// Raw URL text for a broken path or query value (fetch would not send a NUL or a surrogate as is).
const URL_MUTATIONS: Mutation[] = [
  { label: 'NUL', value: '%00' },
  { label: 'lone surrogate', value: '%ED%A0%80' },
  { label: 'bad percent-encoding', value: '%E0%A4%A' },
  { label: 'control characters', value: '%07%1B' },
  { label: 'over-long', value: 'x'.repeat(5_000) },
  { label: 'wrong type', value: 'not-a-valid-value' },
];

interface Request {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Record<string, string>;
  readonly body?: string | Buffer;
  /** The request carries text the shared rule refuses: it must not be accepted. */
  readonly forbidden: boolean;
}

function requestsFor(op: Operation, fixture: Fixture, resolve: (s: JsonSchema) => JsonSchema): Request[] {
  const params = op.parameters;
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const headerParams = params.filter((p) => p.in === 'header');
  const fill = (overrides: Record<string, string> = {}) =>
    op.path.replace(
      /\{(\w+)\}/g,
      (_, name: string) => overrides[name] ?? paramValue(op.path, name, fixture.ids),
    );
  const queryOf = (overrides: Record<string, string | undefined> = {}) => {
    const parts: string[] = [];
    for (const p of queryParams) {
      const given =
        p.name in overrides
          ? overrides[p.name]
          : p.required
            ? String(sample(p.schema ?? {}, resolve))
            : undefined;
      if (given !== undefined) parts.push(`${p.name}=${given}`);
    }
    return parts.length ? `?${parts.join('&')}` : '';
  };
  const auth: Record<string, string> =
    op.security === 'admin'
      ? { authorization: `Bearer ${fixture.admin}` }
      : op.security === 'session'
        ? { authorization: `Bearer ${fixture.session}` }
        : {};
  const jsonSchema = op.bodies['application/json'];
  const baseBody = jsonSchema ? sample(jsonSchema, resolve) : undefined;
  const base = {
    method: op.method,
    path: fill(),
    query: queryOf(),
    headers: { ...auth, ...(jsonSchema ? { 'content-type': 'application/json' } : {}) },
    ...(baseBody === undefined ? {} : { body: JSON.stringify(baseBody) }),
  };
  const forbiddenLabel = (label: string) => label === 'NUL' || label === 'lone surrogate';
  const requests: Request[] = [];

  for (const p of pathParams) {
    for (const m of URL_MUTATIONS) {
      requests.push({
        ...base,
        label: `path ${p.name}: ${m.label}`,
        path: fill({ [p.name]: String(m.value) }),
        forbidden: forbiddenLabel(m.label),
      });
    }
  }
  for (const p of queryParams) {
    for (const m of URL_MUTATIONS) {
      // A query value that is not UTF-8 is kept as its raw text, so only the NUL must be refused.
      requests.push({
        ...base,
        label: `query ${p.name}: ${m.label}`,
        query: queryOf({ [p.name]: String(m.value) }),
        forbidden: m.label === 'NUL',
      });
    }
    requests.push({
      ...base,
      label: `query ${p.name}: repeated`,
      query: `${queryOf({ [p.name]: '1' })}&${p.name}=2`,
      forbidden: false,
    });
  }
  for (const p of headerParams) {
    for (const [label, value] of [
      ['over-long', 'x'.repeat(6_000)],
      ['latin-1 bytes', 'caf\u00e9\u00ff'],
      ['control characters', 'a\tb'],
    ] as const) {
      requests.push({
        ...base,
        label: `header ${p.name}: ${label}`,
        headers: { ...base.headers, [p.name]: value },
        forbidden: false,
      });
    }
  }
  if (jsonSchema) {
    for (const field of stringPaths(jsonSchema, resolve)) {
      for (const m of stringMutations(field.schema, field.required)) {
        requests.push({
          ...base,
          label: `body ${field.path.join('.')}: ${m.label}`,
          body: JSON.stringify(withPath(baseBody, field.path, m.value)),
          forbidden: forbiddenLabel(m.label),
        });
      }
    }
    for (const [label, body] of [
      ['body: not JSON', '{"a":'],
      ['body: null', 'null'],
      ['body: an array', '[]'],
      ['body: a string', '"x"'],
      ['body: NUL key', JSON.stringify({ 'a\u0000': 1 })],
      ['body: deep nesting', `${'['.repeat(5_000)}${']'.repeat(5_000)}`],
    ] as const) {
      requests.push({ ...base, label, body, forbidden: false });
    }
  }
  const form = op.bodies['multipart/form-data'];
  if (form) requests.push(...multipartRequests(base, resolve(form)));
  // A body where none is declared, and an empty one with a JSON content type (accepted as no body).
  if (!jsonSchema && !op.bodies['multipart/form-data']) {
    requests.push({
      ...base,
      label: 'empty JSON body',
      headers: { ...base.headers, 'content-type': 'application/json' },
      body: '',
      forbidden: false,
    });
  }
  return requests;
}

const BOUNDARY = 'fuzz-boundary-7f3a';

/** A declared form broken one way at a time: its text fields, its file fields, its framing. */
function multipartRequests(base: Omit<Request, 'label' | 'forbidden'>, form: JsonSchema): Request[] {
  const fields = Object.entries(form.properties ?? {});
  const isFile = (schema: JsonSchema) => schema.format === 'binary';
  const valid: FormPart[] = fields.map(([name, schema]) =>
    isFile(schema) ? { name, value: 'hello\n', filename: 'a.txt' } : { name, value: 'A form field' },
  );
  const headers = { ...base.headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
  const request = (label: string, parts: readonly FormPart[], forbidden = false, close = true): Request => ({
    ...base,
    label: `multipart ${label}`,
    headers,
    body: multipartBytes(BOUNDARY, parts, close),
    forbidden,
  });
  const requests: Request[] = [];
  for (const [name, schema] of fields) {
    const others = valid.filter((p) => p.name !== name);
    const at = (value: FormPart) => valid.map((p) => (p.name === name ? value : p));
    if ((form.required ?? []).includes(name)) requests.push(request(`${name}: missing`, others));
    if (isFile(schema)) {
      requests.push(request(`${name}: twice`, [...valid, { name, value: 'again', filename: 'b.txt' }]));
      requests.push(request(`${name}: as a text field`, at({ name, value: 'not a file' })));
      requests.push(
        request(`${name}: NUL in the file name`, at({ name, value: 'x', filename: 'a\u0000.txt' })),
      );
    } else {
      requests.push(request(`${name}: NUL`, at({ name, value: 'a\u0000b' }), true));
      requests.push(
        request(`${name}: invalid UTF-8`, at({ name, value: Buffer.from([0x61, 0xed, 0xa0, 0x80]) })),
      );
      requests.push(request(`${name}: control characters`, at({ name, value: 'a\u0007b' })));
      requests.push(
        request(`${name}: over-long`, at({ name, value: 'x'.repeat((schema.maxLength ?? 10_000) * 4 + 1) })),
      );
      requests.push(request(`${name}: as a file`, at({ name, value: 'text', filename: 't.txt' })));
    }
  }
  requests.push(request('an unknown field', [...valid, { name: 'extra', value: 'x' }]));
  requests.push(request('an unknown file', [...valid, { name: 'extra', value: 'x', filename: 'x.txt' }]));
  requests.push(
    request('many parts', [
      ...valid,
      ...Array.from({ length: 50 }, (_, i) => ({ name: `p${i}`, value: 'x' })),
    ]),
  );
  requests.push(request('truncated', valid, false, false));
  requests.push({
    ...request('no boundary', valid),
    headers: { ...headers, 'content-type': 'multipart/form-data' },
  });
  requests.push({
    ...request('wrong boundary', valid),
    headers: { ...headers, 'content-type': 'multipart/form-data; boundary=another-one' },
  });
  requests.push({ ...request('empty body', []), body: '' });
  return requests;
}

async function send(request: Request): Promise<Outcome> {
  const res = await fetch(`${url()}${request.path}${request.query}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined || request.method === 'GET' ? {} : { body: request.body }),
    redirect: 'manual',
  });
  await res.arrayBuffer();
  return {
    request: `${request.method} ${request.path.slice(0, 120)} [${request.label}]`,
    status: res.status,
    type: res.headers.get('content-type') ?? '',
  };
}

// Operations whose success would end the run's own credentials.
const LAST = new Set(['POST /admin/auth/logout-all']);

describe('the contract fuzz over /openapi.json', () => {
  it('answers no 5xx, refuses with problem+json, and never accepts NUL or lone surrogates', async () => {
    const document = (await (await fetch(`${url()}/openapi.json`)).json()) as OpenApiDocument;
    const resolve = resolver(document);
    const fixture = await seed();
    const operations = operationsOf(document).filter((op) => !LAST.has(`${op.method} ${op.path}`));
    const serverErrors: string[] = [];
    const notProblems: string[] = [];
    const accepted: string[] = [];
    let sent = 0;
    for (const op of operations) {
      for (const request of requestsFor(op, fixture, resolve)) {
        const outcome = await send(request);
        sent += 1;
        const line = `${outcome.request} → ${outcome.status}`;
        if (outcome.status >= 500) serverErrors.push(line);
        else if (outcome.status >= 400 && !outcome.type.startsWith('application/problem+json')) {
          notProblems.push(`${line} (${outcome.type})`);
        }
        if (request.forbidden && outcome.status < 400) accepted.push(line);
      }
    }
    expect(sent).toBeGreaterThan(1_000);
    expect(serverErrors).toEqual([]);
    expect(notProblems).toEqual([]);
    expect(accepted).toEqual([]);
  }, 600_000);
});
