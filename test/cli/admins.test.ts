import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { verifyPassword } from '../../src/auth/passwords.ts';
import { useTestDatabase } from '../support/database.ts';
import { spawnService } from '../support/process.ts';

const db = useTestDatabase();
const cli = (args: string[], input?: string) =>
  spawnService(
    process.execPath,
    ['src/cli.ts', 'admins', ...args],
    { DATABASE_URL: db.url, LOG_LEVEL: 'warn' },
    input,
  );
const account = (email: string) =>
  db.pool.maybeOne(sql.type(z.object({ role: z.string(), name: z.string(), password_hash: z.string() }))`
    SELECT role, name, password_hash FROM admin_users WHERE email = ${email}`);

describe('npm run cli -- admins', () => {
  it('create --generate-password makes the account and prints the password once', async () => {
    const run = cli(['create', '--email', 'First@Example.com', '--role', 'owner', '--generate-password']);
    expect(await run.exited).toBe(0);
    const password = /password: (\S+)/.exec(run.output())?.[1] ?? '';
    expect(run.output()).toMatch(/created owner first@example\.com/);
    const row = await account('first@example.com');
    expect(row).toMatchObject({ role: 'owner', name: 'First' });
    expect(await verifyPassword(row?.password_hash ?? '', password)).toBe(true);
  });

  it('create reads the password from stdin when it is not a terminal, and never prints it', async () => {
    const password = 'piped in by a deploy script';
    const run = cli(
      ['create', '--email', 'piped@example.com', '--role', 'auditor', '--name', 'Pipe'],
      `${password}\n`,
    );
    expect(await run.exited).toBe(0);
    expect(run.output()).not.toContain(password);
    expect(await verifyPassword((await account('piped@example.com'))?.password_hash ?? '', password)).toBe(
      true,
    );
  });

  it.each([
    [
      'a weak password',
      ['create', '--email', 'weak@example.com', '--role', 'owner'],
      'short\n',
      /at least 15/,
    ],
    [
      'an unknown role',
      ['create', '--email', 'role@example.com', '--role', 'root', '--generate-password'],
      undefined,
      /--role must be one of/,
    ],
    ['no email', ['create', '--role', 'owner', '--generate-password'], undefined, /--email is required/],
    [
      'a taken email',
      ['create', '--email', 'first@example.com', '--role', 'owner', '--generate-password'],
      undefined,
      /exists already/,
    ],
    [
      'an empty stdin',
      ['create', '--email', 'empty@example.com', '--role', 'owner'],
      '',
      /no password on stdin/,
    ],
  ])('refuses %s with exit code 1, creating nothing', async (_name, args, input, message) => {
    const run = cli(args, input);
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(message);
    for (const email of ['weak@example.com', 'role@example.com', 'empty@example.com']) {
      expect(await account(email)).toBeNull();
    }
  });

  it('set-password replaces the password of an existing admin', async () => {
    const run = cli(['set-password', '--email', 'piped@example.com', '--generate-password']);
    expect(await run.exited).toBe(0);
    const password = /password: (\S+)/.exec(run.output())?.[1] ?? '';
    expect(await verifyPassword((await account('piped@example.com'))?.password_hash ?? '', password)).toBe(
      true,
    );
    const unknown = cli(['set-password', '--email', 'nobody@example.com', '--generate-password']);
    expect(await unknown.exited).toBe(1);
    expect(unknown.output()).toMatch(/no admin with the email/);
  });

  it('list shows every account', async () => {
    const run = cli(['list']);
    expect(await run.exited).toBe(0);
    expect(run.output()).toMatch(/first@example\.com\towner\tactive/);
    expect(run.output()).toMatch(/piped@example\.com\tauditor\tactive\tPipe/);
  });
});
