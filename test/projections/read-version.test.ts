import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import type { Position } from '../../src/events/envelope.ts';
import { createReadVersions, type LocalProjections } from '../../src/projections/read-version.ts';
import type { LocalProgress } from '../../src/projections/runner.ts';
import { useTestDatabase } from '../support/database.ts';

const db = useTestDatabase();

const setCheckpoint = async (name: string, generation: number, commit: number) => {
  await db.pool.query(sql.unsafe`
    INSERT INTO projections (name, active_generation) VALUES (${name}, ${generation})
    ON CONFLICT (name) DO UPDATE SET active_generation = EXCLUDED.active_generation`);
  await db.pool.query(sql.unsafe`
    INSERT INTO projection_checkpoints (name, generation, version, commit_position, prepare_position)
    VALUES (${name}, ${generation}, 1, ${commit}, ${commit})
    ON CONFLICT (name, generation) DO UPDATE
      SET commit_position = EXCLUDED.commit_position, prepare_position = EXCLUDED.prepare_position,
        updated_at = clock_timestamp()`);
};

describe('read versions', () => {
  it('change when a projection moves its checkpoint or switches generation, and only then', async () => {
    const versions = createReadVersions(db.pool);
    await setCheckpoint('alpha', 1, 10);
    await setCheckpoint('beta', 1, 10);
    const before = await versions.fresh(['alpha', 'beta', 'gamma']);
    expect((await versions.fresh(['alpha', 'beta', 'gamma'])).of('alpha')).toBe(before.of('alpha'));

    await setCheckpoint('alpha', 1, 11);
    const moved = await versions.fresh(['alpha', 'beta', 'gamma']);
    expect(moved.of('alpha')).not.toBe(before.of('alpha'));
    expect(moved.of('beta')).toBe(before.of('beta'));
    expect(moved.of('alpha', 'beta')).not.toBe(before.of('alpha', 'beta'));

    // A rebuild's switch to a new generation, even at the same position.
    await setCheckpoint('beta', 2, 10);
    expect((await versions.fresh(['alpha', 'beta', 'gamma'])).of('beta')).not.toBe(moved.of('beta'));
  });

  it('give concurrent callers one answer, and every caller a read made after it asked', async () => {
    const versions = createReadVersions(db.pool);
    await setCheckpoint('gamma', 1, 1);
    const together = await Promise.all(
      Array.from({ length: 50 }, () => versions.fresh(['alpha', 'beta', 'gamma'])),
    );
    expect(new Set(together.map((v) => v.of('gamma'))).size).toBe(1);
    for (let n = 2; n < 6; n++) {
      await setCheckpoint('gamma', 1, n);
      const [seen] = await Promise.all([
        versions.fresh(['alpha', 'beta', 'gamma']),
        versions.fresh(['alpha', 'beta', 'gamma']),
      ]);
      expect(seen.of('gamma')).toMatch(new RegExp(`^1:${n}:${n}:`));
    }
  });

  it('name a projection that has no checkpoint yet', async () => {
    expect((await createReadVersions(db.pool).fresh(['never-ran'])).of('never-ran')).toBe('-');
  });
});

/** What a projection runner in this process reports: set by hand, as the runner would after each batch. */
function localRunner() {
  const progress = new Map<string, LocalProgress>();
  const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });
  const projections: LocalProjections = { local: (name) => progress.get(name) };
  return {
    projections,
    set(name: string, generation: number, position: number, epoch = 1) {
      progress.set(name, { generation, position: at(position), epoch });
    },
    stop(name: string) {
      progress.delete(name);
    },
  };
}

describe('read versions where this process runs the projection', () => {
  it('follow the local runner at once, without a read, while a recent read agrees', async () => {
    let clock = 1_000_000;
    const runner = localRunner();
    const versions = createReadVersions(db.pool, { local: runner.projections, now: () => clock });
    await setCheckpoint('delta', 1, 20);
    runner.set('delta', 1, 20);
    const first = await versions.fresh(['delta']); // no read yet: from the database
    expect(first.of('delta')).toMatch(/^1:20:20:/);

    const local = await versions.fresh(['delta']);
    expect(local.of('delta')).toBe('L1:1:20:20');
    // A batch the runner committed shows at once (the database is behind no one but the runner).
    await setCheckpoint('delta', 1, 21);
    runner.set('delta', 1, 21);
    expect((await versions.fresh(['delta'])).of('delta')).toBe('L1:1:21:21');
    // No read behind it: the runner is ahead of what the database last said, and the version follows it.
    runner.set('delta', 1, 22);
    expect((await versions.fresh(['delta'])).of('delta')).toBe('L1:1:22:22');

    // A rebuild's switch elsewhere: seen once the last read is older than the window.
    await setCheckpoint('delta', 2, 21);
    clock += 1_500;
    const switched = await versions.fresh(['delta']);
    expect(switched.of('delta')).toMatch(/^2:21:21:/);
    expect((await versions.fresh(['delta'])).of('delta')).toMatch(/^2:21:21:/);
  });

  it('answer the same list with the same versions until a batch or a read changes them', async () => {
    let clock = 3_000_000;
    const runner = localRunner();
    const versions = createReadVersions(db.pool, { local: runner.projections, now: () => clock });
    const names = ['iota', 'kappa'];
    await setCheckpoint('iota', 1, 3);
    await setCheckpoint('kappa', 1, 4);
    runner.set('iota', 1, 3);
    runner.set('kappa', 1, 4);
    await versions.fresh(names);
    const local = await versions.fresh(names);
    expect(await versions.fresh(names)).toBe(local);
    expect(local.of('iota', 'kappa')).toBe('L1:1:3:3|L1:1:4:4');
    expect(local.of('kappa')).toBe('L1:1:4:4');
    expect(local.of('kappa', 'iota')).toBe('L1:1:4:4|L1:1:3:3');

    runner.set('kappa', 1, 5);
    const moved = await versions.fresh(names);
    expect(moved).not.toBe(local);
    expect(moved.of('iota', 'kappa')).toBe('L1:1:3:3|L1:1:5:5');

    // Past the window the database is asked again, and its answer stands until the next batch.
    await setCheckpoint('kappa', 2, 5);
    clock += 1_500;
    expect((await versions.fresh(names)).of('kappa')).toMatch(/^2:5:5:/);
    expect((await versions.fresh(names)).of('kappa')).toMatch(/^2:5:5:/);
  });

  it('ask the database when another writer is ahead, the runner stopped, or the projection is unknown', async () => {
    const runner = localRunner();
    const versions = createReadVersions(db.pool, { local: runner.projections });
    await setCheckpoint('epsilon', 1, 30);
    await setCheckpoint('zeta', 1, 5);
    runner.set('epsilon', 1, 25); // the database is ahead: someone else wrote it
    runner.set('zeta', 1, 5);
    await versions.fresh(['epsilon', 'zeta']);
    const mixed = await versions.fresh(['epsilon', 'zeta']);
    expect(mixed.of('epsilon')).toMatch(/^1:30:30:/);
    expect(mixed.of('zeta')).toMatch(/^1:5:5:/);
    expect((await versions.fresh(['zeta'])).of('zeta')).toBe('L1:1:5:5');

    runner.stop('zeta');
    expect((await versions.fresh(['zeta'])).of('zeta')).toMatch(/^1:5:5:/);
    runner.set('eta', 1, 1);
    expect((await versions.fresh(['eta'])).of('eta')).toBe('-');
  });

  it('ask the database after a development reset emptied the tables', async () => {
    let clock = 2_000_000;
    const runner = localRunner();
    const versions = createReadVersions(db.pool, { local: runner.projections, now: () => clock });
    await setCheckpoint('theta', 1, 7);
    runner.set('theta', 1, 7);
    await versions.fresh(['theta']);
    expect((await versions.fresh(['theta'])).of('theta')).toBe('L1:1:7:7');
    await db.pool.query(sql.unsafe`DELETE FROM projection_checkpoints WHERE name = 'theta'`);
    await db.pool.query(sql.unsafe`DELETE FROM projections WHERE name = 'theta'`);
    clock += 1_500;
    expect((await versions.fresh(['theta'])).of('theta')).toBe('-');
    expect((await versions.fresh(['theta'])).of('theta')).toBe('-');
  });
});
