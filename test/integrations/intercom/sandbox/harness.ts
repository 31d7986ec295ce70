import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  startIntercomSandbox,
  type IntercomSandbox,
  type IntercomSandboxOptions,
} from '../../../../src/integrations/intercom/sandbox/index.ts';

export const TOKEN = 'sandbox-test-token';
export const CLIENT_SECRET = 'sandbox-test-client-secret';

export function startSandbox(options: Partial<IntercomSandboxOptions> = {}): Promise<IntercomSandbox> {
  return startIntercomSandbox({
    accessToken: TOKEN,
    clientSecret: CLIENT_SECRET,
    webhookRetryDelayMs: 50,
    ...options,
  });
}

export interface PartBody {
  readonly id: string;
  readonly part_type: string;
  readonly body: string | null;
  readonly state: string;
  readonly ticket_state?: string;
  readonly author: { readonly type: string; readonly id: string };
  readonly attachments: readonly {
    readonly name: string;
    readonly url: string;
    readonly content_type: string;
  }[];
}

/**
 * The fields of Intercom's answers these tests read, all in one type: each answer has only some of them,
 * which `expect` finds out (and the OpenAPI tests check the shapes for real).
 */
export interface Body {
  readonly id: string;
  readonly conversation_id: string;
  readonly read: boolean;
  readonly state: string;
  readonly request_id: string;
  readonly errors: readonly [{ readonly code: string; readonly message: string }];
  readonly data: readonly { readonly external_id: string }[];
  readonly conversations: readonly { readonly id: string }[];
  readonly pages: { readonly next?: { readonly starting_after: string } };
  readonly tags: { readonly tags: readonly unknown[] };
  readonly conversation_parts: { readonly conversation_parts: readonly [PartBody, ...PartBody[]] };
  readonly ticket_parts: { readonly ticket_parts: readonly PartBody[] };
  readonly custom_attributes: Readonly<Record<string, unknown>>;
}

/** A webhook envelope, as far as the tests read it. */
export interface Envelope {
  readonly id: string;
  readonly topic: string;
  readonly delivery_attempts: number;
  readonly created_at: number;
  readonly first_sent_at: number;
  readonly data: { readonly item: Body };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Body;
}

/** A call as a correct Intercom client makes it; `headers` overrides or (with null) drops a header. */
export async function call(
  sandbox: Pick<IntercomSandbox, 'url'>,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string | null> = {},
): Promise<Answer> {
  const merged: Record<string, string | null> = {
    authorization: `Bearer ${TOKEN}`,
    accept: 'application/json',
    'intercom-version': '2.15',
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    ...headers,
  };
  const sent = Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== null),
  );
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: sent,
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : null) as Body,
  };
}

/** A user contact and a conversation it opened, through the API. */
export async function contactWithConversation(
  sandbox: IntercomSandbox,
  externalId: string,
  body = 'Hello, I need help',
): Promise<{ contactId: string; conversationId: string }> {
  const contact = await call(sandbox, 'POST', '/contacts', { role: 'user', external_id: externalId });
  const contactId = contact.body.id;
  const message = await call(sandbox, 'POST', '/conversations', {
    from: { type: 'user', id: contactId },
    body,
  });
  return { contactId, conversationId: message.body.conversation_id };
}

export interface Received {
  readonly headers: IncomingHttpHeaders;
  /** The exact bytes, for checking the signature. */
  readonly raw: Buffer;
  readonly json: Envelope;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Statuses to answer with, in turn; 200 once they run out. */
  readonly statuses: number[];
  close(): Promise<void>;
}

/** A webhook endpoint on loopback that records what arrives. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const statuses: number[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({ headers: request.headers, raw, json: JSON.parse(raw.toString('utf8')) as Envelope });
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/support`,
    received,
    statuses,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  };
}
