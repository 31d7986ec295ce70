import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createLogger } from '../../../../src/http/logger.ts';
import {
  createIntercomClient,
  type IntercomClientOptions,
} from '../../../../src/integrations/intercom/client.ts';
import { ProviderError } from '../../../../src/integrations/intercom/errors.ts';

export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

export interface Answer {
  readonly status?: number;
  readonly body?: unknown;
  /** Sent as is instead of `body` (for malformed answers). */
  readonly raw?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent only once this settles: an Intercom that is slow for as long as the test wants. */
  readonly until?: Promise<unknown>;
}

export type Route = (request: Received) => Answer;

/**
 * A loopback HTTP server that answers what each test scripts: `on('GET /me', ...)` by method and exact
 * path, and Intercom's 404 error list otherwise. It records every request it receives.
 */
export class FakeIntercom {
  readonly received: Received[] = [];
  private readonly routes = new Map<string, Route>();
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text === '' ? undefined : (JSON.parse(text) as unknown),
      };
      this.received.push(request);
      const route = this.routes.get(`${request.method} ${request.path}`);
      const answer = route ? route(request) : notFound();
      const reply = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
      };
      if (answer.until === undefined) reply();
      else void answer.until.then(reply, reply);
    });
  });

  url = '';

  static async start(): Promise<FakeIntercom> {
    const fake = new FakeIntercom();
    await fake.listen();
    return fake;
  }

  async listen(): Promise<void> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  on(methodAndPath: string, route: Route | Answer): this {
    this.routes.set(methodAndPath, typeof route === 'function' ? route : () => route);
    return this;
  }

  /** Answers in turn, repeating the last one. */
  sequence(methodAndPath: string, answers: Answer[]): this {
    let next = 0;
    return this.on(methodAndPath, () => answers[Math.min(next++, answers.length - 1)] ?? {});
  }

  count(methodAndPath?: string): number {
    return methodAndPath === undefined
      ? this.received.length
      : this.received.filter((r) => `${r.method} ${r.path}` === methodAndPath).length;
  }

  reset(): void {
    this.routes.clear();
    this.received.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((done) => {
      this.server.close(() => {
        done();
      });
    });
  }
}

export const errorList = (code: string, message: string) => ({
  type: 'error.list',
  request_id: 'req-0001',
  errors: [{ code, message }],
});

const notFound = (): Answer => ({ status: 404, body: errorList('not_found', 'Resource Not Found') });

/**
 * The fake of one test file: listening before its tests, emptied of routes and requests before each
 * (then given `routes`), closed after them.
 */
export function useFakeIntercom(routes: (fake: FakeIntercom) => void = () => undefined): FakeIntercom {
  const fake = new FakeIntercom();
  beforeAll(() => fake.listen());
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.reset();
    routes(fake);
  });
  return fake;
}

/** The `ProviderError` a call rejects with; fails the test when it resolves or rejects otherwise. */
export async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

export const TEST_TOKEN = 'dG9rOmZha2UtaW50ZXJjb20tdG9rZW4tc2VjcmV0';

/** A client of the fake, with test-sized timings; its logs go to `logs` at debug level. */
export function clientOf(fake: FakeIntercom, options: Partial<IntercomClientOptions> = {}) {
  const lines: string[] = [];
  const logs = {
    lines,
    get text() {
      return lines.join('');
    },
  };
  const client = createIntercomClient({
    baseUrl: fake.url,
    accessToken: TEST_TOKEN,
    logger: createLogger('debug', {
      write: (line: string) => {
        lines.push(line);
      },
    }),
    timeoutMs: 1_000,
    retryInitialDelayMs: 5,
    retryMaxDelayMs: 20,
    breakerThreshold: 1_000,
    maxWaitMs: 3_000,
    budgetKeyPrefix: `intercom-test-${process.pid}-${Math.random().toString(36).slice(2)}`,
    ...options,
  });
  return { client, logs };
}

// Answers shaped like api.intercom.io-2.15.yaml's examples, with a few extra fields to pass through.
export const fixtures = {
  admin: {
    type: 'admin',
    id: '991267459',
    name: 'Ciaran Lee',
    email: 'admin@example.com',
    app: { type: 'app', id_code: 'abc123app', name: 'MyApp', region: 'US' },
  },
  contact: {
    type: 'contact',
    id: '6762f0df1bb69f9f2193bb84',
    workspace_id: 'abc123app',
    external_id: 'user-70',
    role: 'user',
    email: null,
    custom_attributes: {},
  },
  conversation: {
    type: 'conversation',
    id: '1295',
    created_at: 1734537460,
    updated_at: 1734537470,
    open: true,
    state: 'snoozed',
    read: false,
    priority: 'not_priority',
    source: {
      type: 'conversation',
      id: '403918330',
      delivered_as: 'customer_initiated',
      body: '<p>Hello, my order is late</p>',
      author: { type: 'user', id: '6762f0df1bb69f9f2193bb84', name: 'Joe' },
      attachments: [],
    },
    conversation_parts: {
      type: 'conversation_part.list',
      conversation_parts: [
        {
          type: 'conversation_part',
          id: '7',
          part_type: 'comment',
          body: '<p>We are on it</p>',
          created_at: 1734537465,
          author: { type: 'admin', id: '991267459', name: 'Ciaran Lee' },
          attachments: [
            {
              type: 'upload',
              name: 'label.pdf',
              url: 'https://files/x',
              content_type: 'application/pdf',
              filesize: 1200,
            },
          ],
        },
        {
          type: 'conversation_part',
          id: '8',
          part_type: 'assignment',
          body: null,
          created_at: 1734537466,
          author: { type: 'bot', id: '1' },
          attachments: [],
        },
      ],
      total_count: 2,
    },
  },
  message: {
    type: 'user_message',
    id: '403918331',
    created_at: 1734537460,
    body: '<p>Hello</p>',
    message_type: 'inapp',
    conversation_id: '1296',
  },
  ticket: {
    type: 'ticket',
    id: '494',
    ticket_id: '48',
    category: 'Customer',
    ticket_attributes: { _default_title_: 'Refund' },
    ticket_state: {
      type: 'ticket_state',
      id: '7',
      category: 'in_progress',
      internal_label: 'Doing',
      external_label: 'In progress',
    },
    created_at: 1734537500,
    updated_at: 1734537600,
    open: true,
  },
  tag: { type: 'tag', id: '81', name: 'csat' },
};

export const page = (type: string, key: string, items: unknown[], next: string | null) => ({
  type,
  [key]: items,
  total_count: items.length,
  pages: {
    type: 'pages',
    page: 1,
    per_page: 50,
    total_pages: next ? 2 : 1,
    ...(next ? { next: { starting_after: next } } : {}),
  },
});
