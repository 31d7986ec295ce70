import { describe, expect, it } from 'vitest';
import { adminCall, createTestAdmin, loginToken } from '../support/admin.ts';
import { TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { commentAs } from '../support/comments.ts';
import { postThrough } from '../support/posts.ts';
import { spawnService } from '../support/process.ts';

const used = useRunningApp();

describe('npm run cli -- moderation replay', () => {
  it("prints a channel's comments, bans and moderators at an instant, as tables", async () => {
    const url = used.running.url;
    const admin = await loginToken(url, await createTestAdmin(used.db.pool, 'owner'));
    const channelId = (
      (await adminCall(url, admin, 'POST', '/admin/channels', { title: 'CLI' })).body as { id: string }
    ).id;
    const postId = await postThrough(url, admin, channelId, ['publish']);
    const kept = await commentAs(url, channelId, postId, 'stays', 'kim');
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const removed = await commentAs(url, channelId, postId, 'goes', 'lee');
    await adminCall(url, admin, 'DELETE', `/admin/comments/${removed.id}`, { reason: 'rude' });
    await adminCall(url, admin, 'POST', `/admin/channels/${channelId}/bans`, {
      userId: 'lee',
      reason: 'rude',
    });

    const replay = (...extra: string[]) =>
      spawnService(
        process.execPath,
        ['src/cli.ts', 'moderation', 'replay', '--channel', channelId, ...extra],
        // The app's data key secret: the replay opens what the app sealed (decision 048).
        { DATABASE_URL: used.db.url, DATA_KEY_SECRET: TEST_SECRETS.DATA_KEY_SECRET, LOG_LEVEL: 'warn' },
      );
    const now = replay();
    expect(await now.exited).toBe(0);
    const out = now.output();
    expect(out).toMatch(/Comments \(2\)/);
    expect(out).toMatch(new RegExp(`${kept.id}\\s+${postId}\\s+kim\\s+visible`));
    expect(out).toMatch(new RegExp(`${removed.id}\\s+${postId}\\s+lee\\s+deleted`));
    expect(out).toMatch(/Bans in force \(1\)\n.*\n.*\nlee\s+until lifted\s+rude/);

    const earlier = replay('--as-of', before);
    expect(await earlier.exited).toBe(0);
    expect(earlier.output()).toMatch(/Comments \(1\)/);
    expect(earlier.output()).toMatch(/Bans in force \(0\)/);

    const wrong = replay('--as-of', 'yesterday-ish');
    expect(await wrong.exited).toBe(1);
    expect(wrong.output()).toMatch(/--as-of must be an ISO-8601 time/);
  });
});
