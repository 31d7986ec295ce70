import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminSessions } from '../../../src/auth/admin-sessions.ts';
import { adminTokens } from '../../../src/auth/admin-tokens.ts';
import type { DatabasePool } from '../../../src/db/pool.ts';
import { adminOf } from '../../../src/http/plugins/admin-auth.ts';
import { installAdminHooks } from '../../../src/http/routes/admin/index.ts';
import { createTestAdmin, loginToken } from '../../support/admin.ts';
import { TEST_SECRETS, useRunningApp } from '../../support/app.ts';

// An admin command route as later issues add them (create a post, …), counting the times it really ran.
const runs: string[] = [];
function countingAdminRoute(app: FastifyInstance, { pool }: { pool: DatabasePool }): void {
  void app.register(
    async (scope) => {
      const sessions = adminSessions(pool, adminTokens(TEST_SECRETS.ADMIN_SESSION_SECRET, 60));
      installAdminHooks(scope, { pool, sessions });
      scope.post(
        '/things',
        { config: { access: 'signed-in', idempotent: true, audit: { action: 'test.create_thing' } } },
        async (request, reply) => {
          runs.push(adminOf(request).id);
          return reply.code(201).send({ n: runs.length });
        },
      );
    },
    { prefix: '/admin-test' },
  );
}

const used = useRunningApp({ extend: countingAdminRoute });
let a = '';
let b = '';
beforeAll(async () => {
  a = await loginToken(used.running.url, await createTestAdmin(used.db.pool, 'author', 'a'));
  b = await loginToken(used.running.url, await createTestAdmin(used.db.pool, 'author', 'b'));
});

const post = (token: string, key?: string) =>
  fetch(`${used.running.url}/admin-test/things`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...(key ? { 'idempotency-key': key } : {}) },
  });

describe('Idempotency-Key on admin command routes', () => {
  it('replays the first answer to a retry by the same admin, running the command once', async () => {
    const first = await post(a, 'same-key');
    const again = await post(a, 'same-key');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(runs).toHaveLength(1);
  });

  it('keeps keys apart per admin, and runs every request without a key', async () => {
    const before = runs.length;
    expect((await post(b, 'same-key')).headers.get('idempotent-replayed')).toBeNull();
    await post(a);
    await post(a);
    expect(runs.length - before).toBe(3);
  });
});

describe('Idempotency-Key under a burst', () => {
  it('runs the command once when ten requests with one key arrive at once', async () => {
    const before = runs.length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(a, 'burst-key')));
    // The first claims the key; the others are told it is in progress (409) or replay its answer.
    for (const answer of answers) expect([201, 409]).toContain(answer.status);
    expect(answers.filter((r) => r.status === 201 && !r.headers.has('idempotent-replayed'))).toHaveLength(1);
    expect(runs.length - before).toBe(1);
  });
});
