import { describe, expect, it } from 'vitest';
import { adminCall, createTestAdmin, loginToken } from '../../support/admin.ts';
import { useRunningApp } from '../../support/app.ts';

// The admin lists ordered by (instant, id) take a cursor a client may forge: whatever it decodes to, a
// cursor this service did not make is a 400 and never reaches the database (a month 13 once answered 500).
const used = useRunningApp();
const encode = (position: string) => Buffer.from(position, 'utf8').toString('base64url');
const UUID = '0195e7a4-0000-7000-8000-000000000001';

describe('forged list cursors', () => {
  it.each(['/admin/notices', '/admin/complaints', '/admin/csat'])('%s answers 400 for each', async (path) => {
    const owner = await loginToken(used.running.url, await createTestAdmin(used.db.pool, 'owner'));
    for (const position of [
      `2026-13-45T10:00:00.000Z|${UUID}`,
      `2026-01-01T10:00:00.000Z|${'-'.repeat(36)}`,
      `2026-01-01T10:00:00Z|${UUID}`,
      `2026-01-01T10:00:00.000Z|${UUID}|extra`,
      `2026-01-01T10:00:00.000Z ${UUID}`,
      '',
    ]) {
      const answer = await adminCall(used.running.url, owner, 'GET', `${path}?cursor=${encode(position)}`);
      expect(answer.status, `${path} ${position}`).toBe(400);
      expect(answer.body).toMatchObject({ code: 'validation_failed' });
    }
  });
});
