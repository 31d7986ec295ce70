import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../support/database.ts';
import { spawnService } from '../support/process.ts';
import { connectTestRedis } from '../support/redis.ts';

// What `node src/main.ts` starts, in order, as its stop stack logs it (src/wiring/stop-stack.ts): the
// process's own parts, then the service's (src/wiring/service.ts), the service itself last.
const SERVICE_PARTS = [
  'notifications',
  'leader locks',
  'heartbeat',
  'push queue',
  'projections, processors and event store',
  'support chat',
  'push workers',
  'schedule job',
  'retention job',
  'erasure job',
  'http server',
];

describe('a service process stopped by SIGTERM', () => {
  const db = useTestDatabase();
  let dataDir: string;
  let redisUrl: string | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-shutdown-order-'));
    const redis = await connectTestRedis('shutdown order with Redis');
    if (redis !== null) {
      redisUrl = process.env['REDIS_URL'];
      redis.disconnect();
    }
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stops its parts in the exact reverse order of their start, the HTTP server first', async () => {
    const run = spawnService(process.execPath, ['src/main.ts'], {
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl }),
      PORT: '0',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
    });
    try {
      await run.waitFor(/Service listening on http:\/\/\S+/, 60_000);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);

    const lines = run
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg?: unknown; part?: unknown });
    const parts = (msg: string) => lines.filter((l) => l.msg === msg).map((l) => String(l.part));
    const started = parts('started');
    expect(started).toEqual([
      'database pool',
      ...(redisUrl === undefined ? [] : ['redis']),
      'storage',
      ...SERVICE_PARTS,
      'service',
    ]);
    expect(parts('stopping')).toEqual(started.toReversed());
    // Every stop comes after the signal was taken.
    const signalAt = lines.findIndex((l) => l.msg === 'shutting down');
    expect(signalAt).toBeGreaterThan(-1);
    expect(lines.findIndex((l) => l.msg === 'stopping')).toBeGreaterThan(signalAt);
  }, 90_000);
});
