import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../src/db/pool.ts';
import type { IntercomSandbox } from '../../src/integrations/intercom/sandbox/index.ts';
import { eventually } from './eventually.ts';
import { bearer, TEST_SECRETS } from './app.ts';
import { sessionToken } from './jwt.ts';

/** Calls the client API as `user`, JSON in and out. */
export function clientApi(baseUrl: () => string) {
  const call = async (
    user: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${baseUrl()}/api${path}`, {
      method,
      headers: {
        ...bearer(sessionToken(TEST_SECRETS.JWT_SECRET, user)),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const json: unknown = text === '' ? null : JSON.parse(text);
    return { status: response.status, headers: response.headers, json };
  };
  return {
    call,
    get: (user: string, path: string, headers?: Record<string, string>) =>
      call(user, 'GET', path, undefined, headers),
    post: (user: string, path: string, body: unknown, headers?: Record<string, string>) =>
      call(user, 'POST', path, body, headers),
  };
}

/** How many API calls of `method` on a path starting with `prefix` the sandbox has received. */
export const sandboxCalls = (sandbox: IntercomSandbox, method: string, prefix: string): number =>
  sandbox.calls.filter((c) => c.method === method && c.path.startsWith(prefix)).length;

export function requireSandbox(sandbox: IntercomSandbox | null): IntercomSandbox {
  if (!sandbox) throw new Error('the app runs without the Intercom sandbox');
  return sandbox;
}

/** Every webhook the sandbox sent has been processed: no invalidation is still on its way. */
export async function webhooksSettled(sandbox: IntercomSandbox, pool: DatabasePool): Promise<void> {
  await sandbox.operator.webhooksIdle();
  await eventually(
    () =>
      pool.oneFirst(sql.type(z.object({ pending: z.number() }))`
        SELECT count(*)::int AS pending FROM processed_events WHERE processed_at IS NULL AND failed_at IS NULL`),
    (pending) => pending === 0,
  );
}
