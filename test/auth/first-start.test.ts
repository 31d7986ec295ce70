import { lstat, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEV_OWNER_EMAIL, FIRST_PASSWORD_FILE } from '../../src/auth/bootstrap.ts';
import { verifyPassword } from '../../src/auth/passwords.ts';
import { useTestDatabase } from '../support/database.ts';
import { spawnService } from '../support/process.ts';

const db = useTestDatabase();
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-first-start-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('the first development start with stdout piped (no terminal)', () => {
  it('writes the generated password to a 0600 file under DATA_DIR and never into its output', async () => {
    const run = spawnService(process.execPath, ['src/main.ts'], {
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      PORT: '0',
      LOG_LEVEL: 'info',
    });
    try {
      const file = join(dataDir, FIRST_PASSWORD_FILE);
      await run.waitFor(/Service listening on/, 60_000);
      const [banner] = await run.waitFor(/First admin: .*/, 5_000);
      expect(banner).toBe(
        `First admin: ${DEV_OWNER_EMAIL}, password in ${file} (mode 0600; delete it once used)`,
      );

      expect((await lstat(file)).mode & 0o777).toBe(0o600);
      const password = (await readFile(file, 'utf8')).trim();
      expect(password.length).toBeGreaterThanOrEqual(24);
      const hash = await db.pool.oneFirst(
        sql.type(z.object({ h: z.string() }))`
          SELECT password_hash AS h FROM admin_users WHERE email = ${DEV_OWNER_EMAIL}`,
      );
      expect(await verifyPassword(hash, password)).toBe(true);

      // Everything the process wrote (its JSON log lines and the banner): the path, never the password.
      const output = run.output();
      const logLines = output.split('\n').filter((line) => line.startsWith('{'));
      expect(logLines.some((line) => line.includes(file))).toBe(true);
      expect(output).not.toContain(password);
      expect(output).not.toContain('shown this once');
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  }, 90_000);
});
