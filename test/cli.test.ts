import { readFileSync } from 'node:fs';
import { createVerifier } from 'fast-jwt';
import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TEST_SECRETS } from './support/app.ts';
import { createTestDatabase } from './support/database.ts';
import { spawnService } from './support/process.ts';

describe('operator CLI', () => {
  it('migrate applies pending migrations once', async () => {
    const db = await createTestDatabase();
    try {
      // An empty database, as on the first start.
      await db.pool.query(sql.unsafe`DROP SCHEMA public CASCADE`);
      await db.pool.query(sql.unsafe`CREATE SCHEMA public`);
      const first = spawnService(process.execPath, ['src/cli.ts', 'migrate'], {
        DATABASE_URL: db.url,
        LOG_LEVEL: 'warn',
      });
      expect(await first.exited).toBe(0);
      expect(first.output()).toContain(
        'applied: 1763780000000_notification-settings, 1763800000000_event-store, 1763900000000_admin-identity',
      );
      const tables = await db.pool.anyFirst(
        sql.type(z.object({ t: z.string() }))`SELECT tablename AS t FROM pg_tables
          WHERE tablename IN ('notification_settings', 'events') ORDER BY tablename`,
      );
      expect(tables).toEqual(['events', 'notification_settings']);

      const second = spawnService(process.execPath, ['src/cli.ts', 'migrate'], {
        DATABASE_URL: db.url,
        LOG_LEVEL: 'warn',
      });
      expect(await second.exited).toBe(0);
      expect(second.output()).toContain('no pending migrations');

      // A command's answer is its stdout alone; its log lines go to stderr, so a pipe reads only the answer.
      const logged = spawnService(process.execPath, ['src/cli.ts', 'migrate'], {
        DATABASE_URL: db.url,
        LOG_LEVEL: 'debug',
      });
      expect(await logged.exited).toBe(0);
      expect(logged.stdout()).toBe('no pending migrations\n');
      const lines = logged.stderr().split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(0);
      const logLine = z.object({ level: z.number(), msg: z.string() });
      expect(lines.every((line) => logLine.safeParse(JSON.parse(line)).success)).toBe(true);
    } finally {
      await db.drop();
    }
  });

  it('dev-token prints a session JWT that verifies with JWT_SECRET and expires', async () => {
    const run = spawnService(
      process.execPath,
      ['src/cli.ts', 'dev-token', '--user', 'alice', '--ttl', '120'],
      {
        JWT_SECRET: TEST_SECRETS.JWT_SECRET,
        ADMIN_SESSION_SECRET: TEST_SECRETS.ADMIN_SESSION_SECRET,
        FILE_URL_SECRET: TEST_SECRETS.FILE_URL_SECRET,
      },
    );
    expect(await run.exited).toBe(0);
    const claims = createVerifier({ key: TEST_SECRETS.JWT_SECRET, algorithms: ['HS256'] })(
      run.output().trim(),
    ) as {
      sub: string;
      exp: number;
    };
    expect(claims.sub).toBe('alice');
    expect(claims.exp - Date.now() / 1000).toBeGreaterThan(100);
  });

  it('refuses dev-token in production', async () => {
    const run = spawnService(process.execPath, ['src/cli.ts', 'dev-token'], { NODE_ENV: 'production' });
    expect(await run.exited).toBe(1);
    expect(run.output()).not.toMatch(/eyJ/);
  });
});

describe('the CLI’s conventions', () => {
  const cli = async (args: string[]) => {
    const run = spawnService(process.execPath, ['src/cli.ts', ...args], { LOG_LEVEL: 'warn' });
    return { code: await run.exited, output: run.output() };
  };

  it('--version prints the package version and exits 0', async () => {
    const { version } = z
      .object({ version: z.string() })
      .parse(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')));
    expect(await cli(['--version'])).toEqual({ code: 0, output: `${version}\n` });
  });

  it.each([
    'migrate',
    'dev-token',
    'admins',
    'projections',
    'events',
    'data-keys',
    'moderation',
    'users',
    'push-fakes',
  ])('%s --help prints its usage and exits 0, without running it', async (command) => {
    const { code, output } = await cli([command, '--help']);
    expect(code).toBe(0);
    expect(output).toContain(`  ${command}`);
  });

  it('--help exits 0 and an unknown command 2, both with the usage', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.output).toContain('Commands:');
    const unknown = await cli(['no-such-command']);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain('Commands:');
  });

  it('--help says how to run the CLI in the container image', async () => {
    const help = await cli(['--help']);
    expect(help.output).toContain('docker compose exec service node dist/cli.js <command>');
    expect(help.output).toContain(
      'docker run --rm -it --env-file prod.env support-channel-service node dist/cli.js <command>',
    );
  });

  it('echoes what was typed with its control and bidi characters escaped', async () => {
    // ESC [2J clears the screen; U+202E makes the rest of the line read backwards.
    const unknown = await cli(['evil\u001b[2J\u202Edmc']);
    expect(unknown.code).toBe(2);
    expect(unknown.output.split('\n')[0]).toBe("unknown command 'evil\\u{1b}[2J\\u{202e}dmc'");
    expect(unknown.output).not.toContain('\u001b');
    expect(unknown.output).not.toContain('\u202E');

    // An error message that quotes an argument (here parseArgs' unknown option).
    const option = await cli(['admins', 'list', '--\u202Eevil']);
    expect(option.code).toBe(1);
    expect(option.output).toContain('\\u{202e}evil');
    expect(option.output).not.toContain('\u202E');

    // A name that is an Object.prototype key is no command either.
    expect((await cli(['constructor', '--help'])).code).toBe(2);
  });
});
