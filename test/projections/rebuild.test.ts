import { type IdentifierSqlToken, sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerDevice, unregisterDevice } from '../../src/commands/devices.ts';
import { devicesProjection } from '../../src/projections/devices.ts';
import { tablesOf } from '../../src/projections/projection.ts';
import { rebuildProjection } from '../../src/projections/rebuild.ts';
import { holdersOfToken } from '../../src/queries/devices.ts';
import { bearer, TEST_SECRETS, useRunningApp } from '../support/app.ts';
import { deviceTableRows } from '../support/devices.ts';
import { sessionToken } from '../support/jwt.ts';
import { spawnService } from '../support/process.ts';

const service = useRunningApp();

const rowsOf = (table: IdentifierSqlToken) => deviceTableRows(service.db.pool, table);
const generationTable = (generation: number) => tablesOf(devicesProjection, generation).devices;
const liveGeneration = () =>
  service.db.pool.oneFirst(sql.type(z.object({ g: z.number() }))`
    SELECT active_generation AS g FROM projections WHERE name = 'devices'`);

const registerOverHttp = (user: string, token: string) =>
  fetch(`${service.running.url}/api/devices/register`, {
    method: 'POST',
    headers: { ...bearer(sessionToken(TEST_SECRETS.JWT_SECRET, user)), 'content-type': 'application/json' },
    body: JSON.stringify({ platform: 'mobile', token }),
  });

/** A history with moves between users, re-registrations and unregistrations. */
async function writeHistory(events: number): Promise<void> {
  const store = service.running.eventSourcing.store;
  const deps = { store, holdersOf: (token: string) => holdersOfToken(service.db.pool, token) };
  for (let i = 0; i < events; i++) {
    const user = `user-${i % 7}`;
    const token = `token-${(i * 5) % 11}`;
    const context = {
      actor: { type: 'user' as const, id: user },
      commandId: `history-${i}`,
      correlationId: `history-${i}`,
    };
    if (i % 4 === 3) await unregisterDevice(deps, { userId: user, token }, context);
    else {
      const { position } = await registerDevice(deps, { userId: user, platform: 'mobile', token }, context);
      await service.running.eventSourcing.waiter.waitFor(['devices'], position);
    }
  }
}

describe('projections rebuild', () => {
  it('fills a new generation equal to the live one while the live one keeps serving, then switches', async () => {
    await writeHistory(240);
    const head = await service.running.eventSourcing.store.headPosition(devicesProjection.categories);
    expect(await service.running.eventSourcing.waiter.waitFor(['devices'], head, 10_000)).toBe(true);
    const before = await liveGeneration();
    const liveRows = await rowsOf(sql.identifier(['devices']));
    expect(liveRows.length).toBeGreaterThan(3);

    let servedDuringFill = false;
    const result = await rebuildProjection({
      pool: service.db.pool,
      store: service.running.eventSourcing.store,
      connectionString: service.db.url,
      projection: devicesProjection,
      batchSize: 50,
      keepPrevious: true,
      onProgress: async ({ phase, applied }) => {
        if (phase !== 'filling' || applied === 0 || servedDuringFill) return;
        servedDuringFill = true;
        // Halfway through the fill: the service still reads and writes the old generation.
        expect(await liveGeneration()).toBe(before);
        expect((await registerOverHttp('late-user', 'during-rebuild')).status).toBe(200);
        expect((await rowsOf(sql.identifier(['devices']))).map((r) => r.token)).toContain('during-rebuild');
      },
    });
    expect(servedDuringFill).toBe(true);
    expect(result).toMatchObject({ previousGeneration: before, generation: before + 1 });
    expect(await liveGeneration()).toBe(before + 1);

    // Built from the log alone, the new tables equal the ones the live runner kept.
    const rebuilt = await rowsOf(generationTable(result.generation));
    expect(rebuilt).toEqual(await rowsOf(generationTable(before)));
    expect(rebuilt.map((r) => r.token)).toContain('during-rebuild');
    expect(await rowsOf(sql.identifier(['devices']))).toEqual(rebuilt);

    // The live runner follows the new generation from where the rebuild stopped.
    expect((await registerOverHttp('after-user', 'after-rebuild')).status).toBe(200);
    const now = await rowsOf(generationTable(result.generation));
    expect(now.map((r) => r.token)).toContain('after-rebuild');
    expect(await rowsOf(sql.identifier(['devices']))).toEqual(now);
  }, 60_000);

  it('runs from the CLI beside the running service, with progress, and status shows the result', async () => {
    const before = await liveGeneration();
    const rebuild = spawnService(process.execPath, ['src/cli.ts', 'projections', 'rebuild', 'devices'], {
      DATABASE_URL: service.db.url,
      // The service's master key: the rebuild opens the sealed device tokens (decision 048).
      DATA_KEY_SECRET: TEST_SECRETS.DATA_KEY_SECRET,
      LOG_LEVEL: 'warn',
    });
    expect(await rebuild.exited).toBe(0);
    expect(rebuild.output()).toMatch(/devices \|.*\| 100% \| \d+\/\d+ events \| done/);
    expect(rebuild.output()).toMatch(
      new RegExp(`rebuilt devices: \\d+ events into generation ${before + 1}; the service reads it now`),
    );
    expect(await liveGeneration()).toBe(before + 1);
    // The previous generation is gone.
    const schemas = await service.db.pool.anyFirst(sql.type(z.object({ nspname: z.string() }))`
      SELECT nspname FROM pg_namespace WHERE nspname LIKE 'projection\\_devices\\_%' ORDER BY nspname`);
    expect(schemas).toContain(`projection_devices_g${before + 1}`);
    expect(schemas).not.toContain(`projection_devices_g${before}`);

    const status = spawnService(process.execPath, ['src/cli.ts', 'projections', 'status'], {
      DATABASE_URL: service.db.url,
      LOG_LEVEL: 'warn',
    });
    expect(await status.exited).toBe(0);
    expect(status.output()).toMatch(
      new RegExp(`devices: generation ${before + 1}, \\d+ events applied, running`),
    );
    expect((await registerOverHttp('cli-user', 'after-cli')).status).toBe(200);
    expect((await rowsOf(sql.identifier(['devices']))).map((r) => r.token)).toContain('after-cli');
  }, 60_000);

  it('refuses an unknown projection', async () => {
    const run = spawnService(process.execPath, ['src/cli.ts', 'projections', 'rebuild', 'nope'], {
      DATABASE_URL: service.db.url,
      LOG_LEVEL: 'warn',
    });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain("no projection named 'nope': one of devices");
  });
});
