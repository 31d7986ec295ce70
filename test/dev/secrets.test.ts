import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../src/config.ts';
import { resolveSecrets } from '../../src/dev/secrets.ts';

const configIn = (dir: string) => envSchema.parse({ NODE_ENV: 'development', DATA_DIR: dir });

describe('development secrets', () => {
  it('are generated once and kept, so a second start signs alike', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dev-secrets-'));
    const first = await resolveSecrets(configIn(dir));
    const second = await resolveSecrets(configIn(dir));
    for (const name of [
      'JWT_SECRET',
      'ADMIN_SESSION_SECRET',
      'FILE_URL_SECRET',
      'DATA_KEY_SECRET',
    ] as const) {
      expect(first[name].length).toBeGreaterThanOrEqual(32);
      expect(second[name]).toBe(first[name]);
    }
  });

  it('add the data keys’ master key to a file from before it, keeping the other three', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dev-secrets-'));
    const before = {
      JWT_SECRET: 'j'.repeat(40),
      ADMIN_SESSION_SECRET: 'a'.repeat(40),
      FILE_URL_SECRET: 'f'.repeat(40),
    };
    await writeFile(join(dir, 'dev-secrets.json'), JSON.stringify(before));
    const resolved = await resolveSecrets(configIn(dir));
    expect(resolved).toMatchObject(before);
    expect(resolved.DATA_KEY_SECRET.length).toBeGreaterThanOrEqual(32);
    const kept: unknown = JSON.parse(await readFile(join(dir, 'dev-secrets.json'), 'utf8'));
    expect(kept).toEqual({ ...before, DATA_KEY_SECRET: resolved.DATA_KEY_SECRET });
    expect((await resolveSecrets(configIn(dir))).DATA_KEY_SECRET).toBe(resolved.DATA_KEY_SECRET);
  });

  it('are never generated in production', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dev-secrets-'));
    await expect(resolveSecrets(envSchema.parse({ NODE_ENV: 'production', DATA_DIR: dir }))).rejects.toThrow(
      'production never generates secrets',
    );
  });
});
