import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { type IntercomSandbox, OPERATOR_PREFIX } from '../src/integrations/intercom/sandbox/index.ts';
import { jsonOf } from './fleet-http.ts';
import type { Teardown } from './teardown.ts';

/** Where the generator sends an operator's reply: `POST <url>${OPERATOR_PREFIX}/conversations/:id/reply`. */
export interface OperatorEndpoint {
  readonly url: string;
  readonly token: string;
  /** `sandbox`: the sandbox's own operator route; `relay`: the bench's stand-in for it (see below). */
  readonly via: 'sandbox' | 'relay';
}

const REPLY_PATH = new RegExp(`^${OPERATOR_PREFIX}/conversations/([^/]+)/reply$`);
const replyBody = z.object({ body: z.string().min(1) });

/**
 * The sandbox's operator routes need its access token, which startSupport makes and keeps to itself.
 * When the sandbox exposes it (`accessToken`), the generator calls the sandbox directly. Otherwise this
 * relay, in the service's process like the sandbox, takes the same request and calls the same
 * in-process `operator.reply`; the sandbox then sends the signed webhook to the service either way.
 */
export async function operatorEndpoint(
  sandbox: IntercomSandbox,
  teardown: Teardown,
): Promise<OperatorEndpoint> {
  const exposed: unknown = (sandbox as unknown as { accessToken?: unknown }).accessToken;
  if (typeof exposed === 'string') return { url: sandbox.url, token: exposed, via: 'sandbox' };

  const token = randomBytes(24).toString('base64url');
  const server = createServer((request, response) => {
    const id = REPLY_PATH.exec(request.url ?? '')?.[1];
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const parsed = replyBody.safeParse(jsonOf(Buffer.concat(chunks).toString()));
      if (request.method !== 'POST' || id === undefined) answer(404, { error: 'not found' });
      else if (request.headers.authorization !== `Bearer ${token}`) answer(401, { error: 'unauthorized' });
      else if (!parsed.success) answer(400, { error: parsed.error.message });
      else {
        sandbox.operator.reply(decodeURIComponent(id), parsed.data).then(
          (result) => {
            answer(200, result);
          },
          (error: unknown) => {
            answer(404, { error: String(error) });
          },
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  teardown.add('operator relay', () => new Promise((resolve) => server.close(resolve)));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, token, via: 'relay' };
}
