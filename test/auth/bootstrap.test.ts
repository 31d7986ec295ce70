import { chmod, lstat, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DEV_OWNER_EMAIL,
  FIRST_PASSWORD_FILE,
  handOverFirstPassword,
  seedFirstOwner,
} from '../../src/auth/bootstrap.ts';
import { verifyPassword } from '../../src/auth/passwords.ts';
import { createLogger } from '../../src/http/logger.ts';
import { createTestAdmin } from '../support/admin.ts';
import { LogCapture } from '../support/app.ts';
import { useTestDatabase } from '../support/database.ts';

const db = useTestDatabase();
const owners = () =>
  db.pool.any(sql.type(z.object({ email: z.string(), role: z.string(), password_hash: z.string() }))`
    SELECT email, role, password_hash FROM admin_users ORDER BY created_at`);
const empty = () => db.pool.query(sql.unsafe`DELETE FROM admin_users`);
const PASSWORD = 'seeded by the container env';
const production = {
  NODE_ENV: 'production',
  ADMIN_BOOTSTRAP_EMAIL: 'Ops@Example.com',
  ADMIN_BOOTSTRAP_PASSWORD: PASSWORD,
} as const;

describe('first owner', () => {
  it('comes from ADMIN_BOOTSTRAP_EMAIL/PASSWORD when there is no admin, once, in production too', async () => {
    await empty();
    const logs = new LogCapture();
    const seeded = await seedFirstOwner(db.pool, production, createLogger('info', logs));
    expect(seeded).toEqual({ email: 'ops@example.com', generatedPassword: null });
    const [row, ...rest] = await owners();
    expect(rest).toEqual([]);
    expect(row).toMatchObject({ email: 'ops@example.com', role: 'owner' });
    expect(await verifyPassword(row?.password_hash ?? '', PASSWORD)).toBe(true);
    expect(logs.text).toContain('first owner created');
    expect(logs.text).not.toContain(PASSWORD);
    // Later starts leave the accounts alone, even with other bootstrap values.
    const again = { ...production, ADMIN_BOOTSTRAP_EMAIL: 'other@example.com' };
    expect(await seedFirstOwner(db.pool, again, createLogger('silent'))).toBeNull();
    expect(await owners()).toHaveLength(1);
  });

  it('refuses a bootstrap password the policy refuses, creating nothing and not repeating it', async () => {
    await empty();
    const weak = { ...production, ADMIN_BOOTSTRAP_PASSWORD: 'password123' };
    const error = await seedFirstOwner(db.pool, weak, createLogger('silent')).catch((e: unknown) => e);
    expect(String(error)).toMatch(/ADMIN_BOOTSTRAP_PASSWORD: must be at least 15 characters/);
    expect(String(error)).not.toContain('password123');
    expect(await owners()).toEqual([]);
  });

  it('is invented with a generated password only in development, and only while there is no admin', async () => {
    await empty();
    const seeded = await seedFirstOwner(db.pool, { NODE_ENV: 'development' }, createLogger('silent'));
    expect(seeded?.email).toBe(DEV_OWNER_EMAIL);
    const generated = seeded?.generatedPassword ?? '';
    expect(generated.length).toBeGreaterThanOrEqual(24);
    expect(await verifyPassword((await owners())[0]?.password_hash ?? '', generated)).toBe(true);
    expect(await seedFirstOwner(db.pool, { NODE_ENV: 'development' }, createLogger('silent'))).toBeNull();
    expect(await owners()).toHaveLength(1);
  });

  it.each(['production', 'test'] as const)('is never invented with NODE_ENV=%s', async (env) => {
    await empty();
    const logs = new LogCapture();
    expect(await seedFirstOwner(db.pool, { NODE_ENV: env }, createLogger('warn', logs))).toBeNull();
    expect(await owners()).toEqual([]);
    expect(logs.text).toContain('no admin account yet');
  });

  it('is seeded once when replicas start together', async () => {
    await empty();
    const results = await Promise.all(
      [1, 2, 3].map(() => seedFirstOwner(db.pool, production, createLogger('silent'))),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await owners()).toHaveLength(1);
  });

  it('is not seeded when any admin exists, whatever its role', async () => {
    await empty();
    await createTestAdmin(db.pool, 'auditor');
    expect(await seedFirstOwner(db.pool, { NODE_ENV: 'development' }, createLogger('silent'))).toBeNull();
    expect((await owners()).map((o) => o.role)).toEqual(['auditor']);
  });
});

describe('the generated first password', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-first-password-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const generated = { email: DEV_OWNER_EMAIL, generatedPassword: 'Tidal-generated-first-password-lantern' };
  const mode = async (file: string) => (await lstat(file)).mode & 0o777;

  it('goes to a file of mode 0600 under DATA_DIR when stdout is no terminal, and only its path is logged', async () => {
    const dataDir = join(dir, 'piped');
    const logs = new LogCapture();
    const handover = await handOverFirstPassword(generated, {
      dataDir,
      interactive: false,
      logger: createLogger('info', logs),
    });
    const file = join(dataDir, FIRST_PASSWORD_FILE);
    expect(handover).toEqual({ to: 'file', email: DEV_OWNER_EMAIL, file });
    expect(await readFile(file, 'utf8')).toBe(`${generated.generatedPassword}\n`);
    expect(await mode(file)).toBe(0o600);
    expect(logs.text).toContain(file);
    expect(logs.text).not.toContain(generated.generatedPassword);
  });

  it('replaces an older file (even a readable one, or a symlink) with a fresh private one', async () => {
    const dataDir = join(dir, 'again');
    const file = join(dataDir, FIRST_PASSWORD_FILE);
    const options = { dataDir, interactive: false, logger: createLogger('silent') };
    await handOverFirstPassword({ ...generated, generatedPassword: 'an older password' }, options);
    await chmod(file, 0o644);
    await handOverFirstPassword(generated, options);
    expect(await readFile(file, 'utf8')).toBe(`${generated.generatedPassword}\n`);
    expect(await mode(file)).toBe(0o600);

    const elsewhere = join(dir, 'elsewhere.txt');
    await writeFile(elsewhere, 'not to be touched', { mode: 0o644 });
    await rm(file);
    await symlink(elsewhere, file);
    await handOverFirstPassword(generated, options);
    expect((await lstat(file)).isSymbolicLink()).toBe(false);
    expect(await readFile(elsewhere, 'utf8')).toBe('not to be touched');
    expect(await readFile(file, 'utf8')).toBe(`${generated.generatedPassword}\n`);
  });

  it('is handed to the caller to print on an interactive terminal, with no file written', async () => {
    const dataDir = join(dir, 'terminal');
    const logs = new LogCapture();
    const handover = await handOverFirstPassword(generated, {
      dataDir,
      interactive: true,
      logger: createLogger('info', logs),
    });
    expect(handover).toEqual({
      to: 'terminal',
      email: DEV_OWNER_EMAIL,
      password: generated.generatedPassword,
    });
    await expect(lstat(join(dataDir, FIRST_PASSWORD_FILE))).rejects.toThrow(/ENOENT/);
    expect(logs.text).not.toContain(generated.generatedPassword);
  });

  it('is lost, said so without the password, when the file cannot be written; the start goes on', async () => {
    const blocker = join(dir, 'a-file-not-a-folder');
    await writeFile(blocker, '');
    const logs = new LogCapture();
    const handover = await handOverFirstPassword(generated, {
      dataDir: join(blocker, 'data'),
      interactive: false,
      logger: createLogger('info', logs),
    });
    expect(handover).toEqual({ to: 'nowhere', email: DEV_OWNER_EMAIL });
    expect(logs.text).toContain('admins set-password');
    expect(logs.text).not.toContain(generated.generatedPassword);
  });

  it('is nothing to hand over for a configured password or no seed', async () => {
    const options = { dataDir: join(dir, 'none'), interactive: false, logger: createLogger('silent') };
    expect(
      await handOverFirstPassword({ email: 'ops@example.com', generatedPassword: null }, options),
    ).toBeNull();
    expect(await handOverFirstPassword(null, options)).toBeNull();
    await expect(lstat(options.dataDir)).rejects.toThrow(/ENOENT/);
  });
});
