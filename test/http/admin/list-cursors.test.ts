import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adminCall, createTestAdmin, loginToken } from '../../support/admin.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../../support/app.ts';
import { sessionToken } from '../../support/jwt.ts';

// The lists ordered by (instant, id) take a cursor a client may forge: whatever it decodes to, a cursor
// this service did not make is a 400 and never reaches the database (a month 13, a year 0000 or a
// six-digit year once answered 500).
const used = useRunningApp();
const encode = (position: string) => Buffer.from(position, 'utf8').toString('base64url');
const UUID = '0195e7a4-0000-7000-8000-000000000001';
const forged = [
  `2026-13-45T10:00:00.000Z|${UUID}`,
  `0000-01-01T00:00:00.000Z|${UUID}`,
  `+275760-09-13T00:00:00.000Z|${UUID}`,
  `-000001-01-01T00:00:00.000Z|${UUID}`,
  `garbage|${'-'.repeat(36)}`,
  `2026-01-01T10:00:00.000Z|${'-'.repeat(36)}`,
  `2026-01-01T10:00:00Z|${UUID}`,
  `2026-01-01T10:00:00.000Z|${UUID}|extra`,
  `2026-01-01T10:00:00.000Z ${UUID}`,
  '',
];
const channel = randomUUID();

describe('forged list cursors', () => {
  it.each([
    '/admin/notices?cursor=',
    '/admin/complaints?cursor=',
    '/admin/csat?cursor=',
    '/admin/reports?cursor=',
    `/admin/channels/${channel}/comments?cursor=`,
    `/admin/channels/${channel}/posts?cursor=`,
  ])('%s answers 400 for each', async (path) => {
    const owner = await loginToken(used.running.url, await createTestAdmin(used.db.pool, 'owner'));
    for (const position of forged) {
      const answer = await adminCall(used.running.url, owner, 'GET', `${path}${encode(position)}`);
      expect(answer.status, `${path} ${position}`).toBe(400);
      expect(answer.body).toMatchObject({ code: 'validation_failed' });
    }
  });

  it("the channel feed's before answers 400 for each", async () => {
    const headers = bearer(sessionToken(TEST_SECRETS.JWT_SECRET, 'cursor-forger'));
    for (const position of forged) {
      const answer = await fetch(
        `${used.running.url}/api/channel/${channel}/posts?before=${encode(position)}`,
        {
          headers,
        },
      );
      expect(answer.status, position).toBe(400);
      expect(await answer.json()).toMatchObject({ code: 'validation_failed' });
    }
  });
});
