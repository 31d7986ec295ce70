import { text } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { createAdmin, setPassword } from '../auth/admin-accounts.ts';
import { passwordProblem, generatePassword } from '../auth/passwords.ts';
import { roleSchema, roles } from '../auth/permissions.ts';
import type { Config } from '../config.ts';
import { findAdminByEmail, listAdmins } from '../auth/admin-users.ts';
import { migrate } from '../db/migrate.ts';
import { printable } from '../lib/printable.ts';
import { createDatabasePool, type DatabasePool } from '../db/pool.ts';
import { openCliDatabase } from './database.ts';
import { adminsUsage } from './usage.ts';

/** Reads a line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  let value = '';
  return new Promise((done, fail) => {
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          finish();
          done(value);
          return;
        }
        if (ch === '\u0003' || ch === '\u0004') {
          finish();
          fail(new Error('cancelled'));
          return;
        }
        value = ch === '\u007f' || ch === '\b' ? Array.from(value).slice(0, -1).join('') : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** The new password: generated (and printed), typed twice on a terminal, or stdin's first line. */
async function newPassword(email: string, generate: boolean): Promise<{ password: string; print: boolean }> {
  if (generate) return { password: generatePassword(), print: true };
  if (!process.stdin.isTTY) {
    const line = (await text(process.stdin)).split(/\r?\n/)[0] ?? '';
    if (line === '') throw new Error('no password on stdin: pipe one in or pass --generate-password');
    return { password: line, print: false };
  }
  for (;;) {
    const password = await promptHidden('Password: ');
    const problem = await passwordProblem(password, email);
    if (problem !== null) {
      process.stderr.write(`The password ${problem}; try another.\n`);
      continue;
    }
    if ((await promptHidden('Again: ')) === password) return { password, print: false };
    process.stderr.write('The two did not match; try again.\n');
  }
}

async function withPool(config: Config, logger: Logger, body: (pool: DatabasePool) => Promise<void>) {
  const database = await openCliDatabase(config, logger);
  try {
    await migrate(database.url, logger);
    const pool = await createDatabasePool(database.url, { maximumPoolSize: 2 });
    try {
      await body(pool);
    } finally {
      await pool.end();
    }
  } finally {
    await database.release();
  }
}

const options = {
  email: { type: 'string' },
  role: { type: 'string' },
  name: { type: 'string' },
  'generate-password': { type: 'boolean', default: false },
} as const;

export async function runAdminsCommand(config: Config, logger: Logger, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({ args: rest, options });
  const email = values.email;
  if (sub === 'list') {
    await withPool(config, logger, async (pool) => {
      for (const a of (await listAdmins(pool, 100, null)).items) {
        const state = a.active ? 'active' : 'deactivated';
        process.stdout.write(`${printable(a.email)}\t${a.role}\t${state}\t${printable(a.name)}\n`);
      }
    });
    return;
  }
  if (sub !== 'create' && sub !== 'set-password') throw new Error(`usage:\n${adminsUsage}`);
  if (email === undefined) throw new Error('--email is required');
  const role = sub === 'create' ? roleSchema.safeParse(values.role) : undefined;
  if (role && !role.success) throw new Error(`--role must be one of ${roles.join(', ')}`);
  const { password, print } = await newPassword(email, values['generate-password']);
  await withPool(config, logger, async (pool) => {
    if (role?.success) {
      const created = await createAdmin(
        { pool },
        { email, role: role.data, name: values.name ?? email.split('@')[0] ?? email, password },
      );
      process.stdout.write(`created ${created.role} ${printable(created.email)} (${created.id})\n`);
    } else {
      const admin = await findAdminByEmail(pool, email);
      if (!admin) throw new Error(`no admin with the email ${printable(email)}`);
      await setPassword({ pool }, admin.id, password);
      process.stdout.write(`password set for ${printable(admin.email)}; its sessions have ended\n`);
    }
    if (print) process.stdout.write(`password: ${password}\n`);
  });
}
