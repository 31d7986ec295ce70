import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { CONSOLE_BUILD_DIR } from '../../src/http/routes/console.ts';

// The service serves the committed console/dist with no build step (decision 044), so the build must be
// what console/ makes: a change of the console's code whose build was not committed fails here.
let out: string | undefined;
afterAll(async () => {
  if (out !== undefined) await rm(out, { recursive: true, force: true });
});

/** Every file under `dir`, by its path there, as a digest of its bytes. */
async function digests(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  const pairs = await Promise.all(
    files.map(async (file): Promise<[string, string]> => {
      const digest = createHash('sha256')
        .update(await readFile(file))
        .digest('hex');
      return [relative(dir, file), digest];
    }),
  );
  return Object.fromEntries(pairs.sort(([a], [b]) => a.localeCompare(b)));
}

it('console/dist is the build of console/ as it stands', async () => {
  out = await mkdtemp(join(tmpdir(), 'console-build-'));
  await promisify(execFile)(process.execPath, ['scripts/console-build.ts', out], {
    cwd: join(import.meta.dirname, '../..'),
  });
  expect(await digests(out), 'run `npm run console:build` and commit console/dist').toEqual(
    await digests(CONSOLE_BUILD_DIR),
  );
}, 180_000);
