import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { examples } from '../../src/http/openapi/examples.ts';
import { useRunningApp, bearer } from '../support/app.ts';
import { sessionToken } from '../support/jwt.ts';
import { TEST_SECRETS } from '../support/app.ts';

/**
 * The document as an SDK author meets it: Redocly's recommended rules pass with no error and only the
 * warnings decision 031 accepts; every operation is named; examples fit their schemas; and the headers
 * the document promises are the ones the server sends.
 */

const run = promisify(execFile);
const redocly = join(process.cwd(), 'node_modules/@redocly/cli/bin/cli.js');

const header = z.object({ $ref: z.string() }).or(z.object({ required: z.boolean().optional() }));
const media = z.object({ schema: z.unknown().optional(), example: z.unknown().optional() });
const response = z.object({
  description: z.string(),
  headers: z.record(z.string(), header).optional(),
  content: z.record(z.string(), media).optional(),
});
const operation = z.object({
  operationId: z.string().optional(),
  requestBody: z.object({ content: z.record(z.string(), media) }).optional(),
  responses: z.record(z.string(), response),
});
const documentSchema = z.object({
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.object({ schemas: z.record(z.string(), z.unknown()) }).loose(),
});
type Operation = z.infer<typeof operation>;

const operationsOf = (document: z.infer<typeof documentSchema>) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'put', 'post', 'patch', 'delete'].includes(method))
      .map(([method, value]) => ({ path, method, operation: operation.parse(value) })),
  );

/** The warnings decision 031 keeps, by rule and place. */
const acceptedWarnings = [
  'info-license-strict #/info/license',
  'operation-4xx-response #/paths/~1health~1live/get/responses',
  'operation-4xx-response #/paths/~1health~1ready/get/responses',
];

const lintResult = z.object({
  problems: z.array(
    z.object({
      ruleId: z.string(),
      severity: z.enum(['error', 'warn']),
      message: z.string(),
      location: z.array(z.object({ pointer: z.string() })),
    }),
  ),
});

async function lint(document: unknown) {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    // The CLI exits 1 when it finds an error; the JSON report is on stdout either way.
    const output = await run(
      process.execPath,
      [redocly, 'lint', file, '--format=json', '--max-problems=1000'],
      {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: unknown) => z.object({ stdout: z.string(), stderr: z.string() }).parse(error));
    if (!output.stdout.trimEnd().endsWith('}')) throw new Error(`no report from redocly: ${output.stderr}`);
    return lintResult.parse(JSON.parse(output.stdout)).problems;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe.each([
  { name: 'without devtools', env: {} },
  { name: 'with devtools', env: { ENABLE_DEVTOOLS: '1', ENABLE_DEVTOOLS_RESET_ALL: '1' } },
])('the OpenAPI document ($name)', ({ env }) => {
  const used = useRunningApp({ env });
  const load = async () =>
    documentSchema.parse(await (await fetch(`${used.running.url}/openapi.json`)).json());

  it('passes Redocly lint with no error and only the accepted warnings', { timeout: 60_000 }, async () => {
    const problems = await lint(await (await fetch(`${used.running.url}/openapi.json`)).json());
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    const warnings = problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}`).sort();
    expect(warnings).toEqual(acceptedWarnings);
  });

  it('names every operation once, camelCase, for its domain and action', async () => {
    const ids = operationsOf(await load()).map(({ operation: o }) => o.operationId);
    expect(ids.every((id) => id !== undefined && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares every error as problem+json and every answer with its request id', async () => {
    for (const { path, method, operation: o } of operationsOf(await load())) {
      for (const [status, answer] of Object.entries(o.responses)) {
        const where = `${method} ${path} ${status}`;
        expect(answer.headers?.['X-Request-Id'], where).toBeDefined();
        if (Number(status) >= 400)
          expect(Object.keys(answer.content ?? {}), where).toEqual(['application/problem+json']);
        expect(answer.description, where).not.toBe('Default Response');
      }
    }
  });
});

describe('the examples in the OpenAPI document', () => {
  const used = useRunningApp();

  it('are on their operations and valid against their schemas', async () => {
    const document = documentSchema.parse(await (await fetch(`${used.running.url}/openapi.json`)).json());
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: document.components });
    const byId = new Map(operationsOf(document).map(({ operation: o }) => [o.operationId, o] as const));
    const check = (
      where: string,
      media: { schema?: unknown; example?: unknown } | undefined,
      expected: unknown,
    ) => {
      expect(media?.example, where).toEqual(expected);
      const schema: unknown = JSON.parse(
        JSON.stringify(media?.schema).replaceAll('"#/components/', '"doc#/components/'),
      );
      const validate = ajv.compile(z.record(z.string(), z.unknown()).parse(schema));
      expect(validate(expected) ? [] : validate.errors, where).toEqual([]);
    };
    expect(Object.keys(examples).length).toBeGreaterThan(10);
    for (const [id, example] of Object.entries(examples)) {
      const found: Operation | undefined = byId.get(id);
      expect(found, id).toBeDefined();
      if (example.request !== undefined) {
        const media = found?.requestBody?.content['application/json'];
        check(`${id} request`, media, example.request);
      }
      for (const [status, body] of Object.entries(example.responses ?? {})) {
        check(`${id} ${status}`, found?.responses[status]?.content?.['application/json'], body);
      }
    }
  });
});

describe('the headers the document promises', () => {
  const used = useRunningApp();

  /** The headers a response of this operation must carry, by the document. */
  async function required(path: string, method: string, status: number): Promise<string[]> {
    const document = documentSchema.parse(await (await fetch(`${used.running.url}/openapi.json`)).json());
    const found = operation.parse(document.paths[path]?.[method]);
    const headers = found.responses[String(status)]?.headers ?? {};
    return Object.entries(headers)
      .filter(([, h]) => '$ref' in h || h.required === true)
      .map(([name]) => name.toLowerCase());
  }

  it('are sent on a poll, its 304, an error and a refusal without a session', async () => {
    const auth = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'contract-user'));
    const poll = await fetch(`${used.running.url}/api/complaints`, { headers: auth });
    expect(poll.status).toBe(200);
    const etag = poll.headers.get('etag') ?? '';
    const again = await fetch(`${used.running.url}/api/complaints`, {
      headers: { ...auth, 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    const missing = await fetch(`${used.running.url}/api/files/00000000-0000-4000-8000-000000000000`, {
      headers: auth,
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const anonymous = await fetch(`${used.running.url}/api/config`);
    expect(anonymous.status).toBe(401);

    const cases = [
      { res: poll, path: '/api/complaints', method: 'get', status: 200 },
      { res: again, path: '/api/complaints', method: 'get', status: 304 },
      { res: missing, path: '/api/files/{id}', method: 'get', status: 404 },
      { res: anonymous, path: '/api/config', method: 'get', status: 401 },
    ];
    for (const { res, path, method, status } of cases) {
      const names = await required(path, method, status);
      expect(names.length, `${path} ${status}`).toBeGreaterThan(0);
      for (const name of names) expect(res.headers.get(name), `${path} ${status} ${name}`).not.toBeNull();
    }
    expect(await required('/api/complaints', 'get', 200)).toEqual(
      expect.arrayContaining(['etag', 'x-poll-interval', 'x-request-id']),
    );
  });
});
