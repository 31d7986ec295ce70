import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjections } from '../../src/projections/index.ts';
import { type CountedApp, startCountedApp } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';

const db = useTestDatabase();
let app: CountedApp;

beforeAll(async () => {
  app = await startCountedApp(db);
});

afterAll(async () => {
  await app.close();
});

describe('an idle service', () => {
  it('issues a bounded number of statements, whatever runs inside it', async () => {
    // Settled: every projection has made its first read and waits for notifications.
    await sleep(2_000);
    const from = app.counter.statements.length;
    await sleep(10_000);
    const idle = app.counter.statements.slice(from);
    const count = (pattern: RegExp) => idle.filter((s) => pattern.test(s)).length;
    // Each projection and processor re-reads every 5 s in case a notification was lost: two reads each in
    // 10 s, plus one more when a read lands at the window's edge. The support inbox looks every 10 s (a
    // transaction of three statements and the time of its next retry). The push queue's seven worker
    // slots look for jobs every 30 s in case a NOTIFY was lost, and its maintenance runs every minute or
    // so: at most one look each and a few maintenance statements in a window. Nothing else runs.
    // The processors: the push of a post, the CSAT notes, the complaint notes.
    const subscriptions = allProjections.length + 3;
    expect(count(/FROM events/)).toBeLessThanOrEqual(subscriptions * 3);
    expect(count(/pgboss\./)).toBeLessThanOrEqual(12);
    expect(idle.length - count(/FROM events/) - count(/pgboss\./)).toBeLessThanOrEqual(8);
  }, 30_000);
});
