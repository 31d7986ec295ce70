import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService } from '../support/process.ts';

// The README's promise: `npm start` on a fresh machine, with no DATABASE_URL, just works.
let dataDir: string;
beforeAll(async () => {
  const parent = await mkdtemp(join(tmpdir(), 'svc-e2e-'));
  // Started by root, the embedded cluster runs as `postgres`, which must be able to enter the folder.
  await chmod(parent, 0o755);
  dataDir = join(parent, 'data');
});
afterAll(async () => {
  // A failed assertion must not leave a cluster running on the machine.
  for (const line of postgresProcessesUsing(dataDir))
    process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGINT');
  await rm(join(dataDir, '..'), { recursive: true, force: true });
});

function postgresProcessesUsing(dir: string): string[] {
  const ps = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return ps.split('\n').filter((line) => line.includes(dir) && !line.includes('ps -eo'));
}

async function startOnce() {
  const run = spawnService('npm', ['start', '--silent'], { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });
  const [, url] = await run.waitFor(/Service listening on (http:\/\/\S+)/, 90_000);
  const [, token] = await run.waitFor(/export TOKEN=(\S+)/, 5_000);
  return { run, url: url ?? '', token: token ?? '' };
}

describe('npm start with an empty DATA_DIR and no DATABASE_URL', () => {
  it('starts an embedded database, serves, prints a working token, and stops cleanly', async () => {
    const first = await startOnce();
    expect(first.run.output()).toContain(`${first.url}/docs`);
    expect((await fetch(`${first.url}/health/ready`)).status).toBe(200);
    // The admin console, from its committed build: no step between `npm ci` and this (decision 044).
    expect(first.run.output()).toContain(`${first.url}/console`);
    const consolePage = await fetch(`${first.url}/console/sign-in`);
    expect(consolePage.status).toBe(200);
    expect(await consolePage.text()).toContain('<div id="root">');

    const headers = { authorization: `Bearer ${first.token}`, 'content-type': 'application/json' };
    const put = await fetch(`${first.url}/api/settings/notifications`, {
      method: 'PUT',
      headers,
      body: '{"ticketUpdates":false}',
    });
    expect(put.status).toBe(200);

    const device = await fetch(`${first.url}/api/devices/register`, {
      method: 'POST',
      headers,
      body: '{"platform":"tma","token":"123"}',
    });
    expect(device.status).toBe(200);

    // The first start seeds an owner; with stdout piped (no terminal) its generated password goes to a
    // file of mode 0600 under DATA_DIR, and only the file's path is printed and logged.
    const [, email, file] = await first.run.waitFor(
      /First admin: (\S+), password in (\S+) \(mode 0600/,
      5_000,
    );
    expect(file).toBe(join(dataDir, 'first-admin-password.txt'));
    expect((await stat(file ?? '')).mode & 0o777).toBe(0o600);
    const password = (await readFile(file ?? '', 'utf8')).trim();
    const login = await fetch(`${first.url}/admin/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(login.status).toBe(200);
    // Never in the output, log lines included.
    expect(first.run.output()).not.toContain(password);

    // Operator commands work on the running service's database instead of starting their own.
    const status = spawnService(process.execPath, ['src/cli.ts', 'projections', 'status'], {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    expect(await status.exited).toBe(0);
    expect(status.output()).toMatch(/devices: generation 1, 1 events applied, running/);

    // A second service on the same DATA_DIR refuses, and leaves the first one's database alone.
    const second = spawnService(process.execPath, ['src/main.ts'], { DATA_DIR: dataDir, PORT: '0' });
    expect(await second.exited).toBe(1);
    expect(second.output()).toMatch(/belongs to process \d+, which is still running/);
    expect((await fetch(`${first.url}/health/ready`)).status).toBe(200);

    first.run.child.kill('SIGTERM');
    expect(await first.run.exited).toBe(0);
    expect(postgresProcessesUsing(dataDir)).toEqual([]);

    // A second start reuses the same data and secrets: the first run's token and settings still hold.
    const again = await startOnce();
    const get = await fetch(`${again.url}/api/settings/notifications`, {
      headers: { authorization: `Bearer ${first.token}` },
    });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ chatMessages: true, ticketUpdates: false, systemNotices: true });
    expect(again.run.output()).not.toContain('First admin');
    again.run.child.kill('SIGTERM');
    expect(await again.run.exited).toBe(0);
    expect(postgresProcessesUsing(dataDir)).toEqual([]);
  }, 180_000);

  it('recovers the data directory after the service was killed without a chance to stop', async () => {
    const crashed = spawnService(process.execPath, ['src/main.ts'], {
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'warn',
    });
    await crashed.waitFor(/Service listening on/, 60_000);
    crashed.child.kill('SIGKILL');
    await crashed.exited;
    expect(postgresProcessesUsing(dataDir).length).toBeGreaterThan(0); // the orphan holds the lock file

    const next = await startOnce();
    expect((await fetch(`${next.url}/health/ready`)).status).toBe(200);
    next.run.child.kill('SIGTERM');
    expect(await next.run.exited).toBe(0);
    expect(postgresProcessesUsing(dataDir)).toEqual([]);
  }, 180_000);
});
