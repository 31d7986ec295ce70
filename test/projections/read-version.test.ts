import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { createReadVersions } from '../../src/projections/read-version.ts';
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
    const before = await versions.fresh();
    expect((await versions.fresh()).of('alpha')).toBe(before.of('alpha'));

    await setCheckpoint('alpha', 1, 11);
    const moved = await versions.fresh();
    expect(moved.of('alpha')).not.toBe(before.of('alpha'));
    expect(moved.of('beta')).toBe(before.of('beta'));
    expect(moved.of('alpha', 'beta')).not.toBe(before.of('alpha', 'beta'));

    // A rebuild's switch to a new generation, even at the same position.
    await setCheckpoint('beta', 2, 10);
    expect((await versions.fresh()).of('beta')).not.toBe(moved.of('beta'));
  });

  it('give concurrent callers one answer, and every caller a read made after it asked', async () => {
    const versions = createReadVersions(db.pool);
    await setCheckpoint('gamma', 1, 1);
    const together = await Promise.all(Array.from({ length: 50 }, () => versions.fresh()));
    expect(new Set(together.map((v) => v.of('gamma'))).size).toBe(1);
    for (let n = 2; n < 6; n++) {
      await setCheckpoint('gamma', 1, n);
      const [seen] = await Promise.all([versions.fresh(), versions.fresh()]);
      expect(seen.of('gamma')).toMatch(new RegExp(`^1:${n}:${n}:`));
    }
  });

  it('name a projection that has no checkpoint yet', async () => {
    expect((await createReadVersions(db.pool).fresh()).of('never-ran')).toBe('-');
  });
});
