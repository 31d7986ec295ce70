import { randomUUID } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import { type Config, ConfigError } from '../config.ts';
import { countAdmins, insertFirstAdmin } from './admin-users.ts';
import type { DatabasePool } from '../db/pool.ts';
import { generatePassword, hashPassword, passwordProblem } from './passwords.ts';

/** The account a development start seeds; example.com is reserved (RFC 2606), so it reaches no one. */
export const DEV_OWNER_EMAIL = 'owner@example.com';

export interface SeededOwner {
  readonly email: string;
  /** Only for a generated password, to print once; never logged. */
  readonly generatedPassword: string | null;
}

type BootstrapConfig = Pick<Config, 'NODE_ENV' | 'ADMIN_BOOTSTRAP_EMAIL' | 'ADMIN_BOOTSTRAP_PASSWORD'>;

async function credentials(config: BootstrapConfig) {
  const email = config.ADMIN_BOOTSTRAP_EMAIL;
  const password = config.ADMIN_BOOTSTRAP_PASSWORD;
  if (email !== undefined && password !== undefined) {
    const problem = await passwordProblem(password, email);
    if (problem !== null) throw new ConfigError([`ADMIN_BOOTSTRAP_PASSWORD: ${problem}`]);
    return { email, password, generated: false };
  }
  if (config.NODE_ENV !== 'development') return null;
  return { email: DEV_OWNER_EMAIL, password: generatePassword(), generated: true };
}

/**
 * The first owner, while there is no admin at all: from ADMIN_BOOTSTRAP_EMAIL/PASSWORD when set (how a
 * container deployment is seeded; a password the policy refuses fails the start), else, in development
 * only, an owner with a generated password. Production and tests never invent an account.
 */
export async function seedFirstOwner(
  pool: DatabasePool,
  config: BootstrapConfig,
  logger: Logger,
): Promise<SeededOwner | null> {
  if ((await countAdmins(pool)) > 0) return null;
  const seed = await credentials(config);
  if (!seed) {
    logger.warn('no admin account yet: create one with `npm run cli -- admins create --role owner`');
    return null;
  }
  return insertOwner(pool, seed, logger);
}

/**
 * The owner again once a development reset has emptied every table (`POST /api/devtools/reset-all`, which
 * production never mounts), so the service stays usable: from ADMIN_BOOTSTRAP_EMAIL/PASSWORD when set,
 * else `owner@example.com` with a generated password, in tests too. Null when an admin exists already.
 */
export async function seedOwnerAfterReset(
  pool: DatabasePool,
  config: BootstrapConfig,
  logger: Logger,
): Promise<SeededOwner | null> {
  const seed = (await credentials(config)) ?? {
    email: DEV_OWNER_EMAIL,
    password: generatePassword(),
    generated: true,
  };
  return insertOwner(pool, seed, logger);
}

async function insertOwner(
  pool: DatabasePool,
  seed: { readonly email: string; readonly password: string; readonly generated: boolean },
  logger: Logger,
): Promise<SeededOwner | null> {
  const seeded = await insertFirstAdmin(pool, {
    id: randomUUID(),
    email: seed.email,
    name: 'Owner',
    role: 'owner',
    passwordHash: await hashPassword(seed.password),
  });
  if (!seeded) return null; // another replica seeded first
  logger.info({ adminId: seeded.id }, 'first owner created');
  return { email: seeded.email, generatedPassword: seed.generated ? seed.password : null };
}

/** The file under DATA_DIR that holds a generated first password when there is no terminal to show it on. */
export const FIRST_PASSWORD_FILE = 'first-admin-password.txt';

/** Where a generated first password went; the password itself only when it is to be printed on a terminal. */
export type FirstPasswordHandover =
  | { readonly to: 'terminal'; readonly email: string; readonly password: string }
  | { readonly to: 'file'; readonly email: string; readonly file: string }
  | { readonly to: 'nowhere'; readonly email: string };

export interface HandoverOptions {
  readonly dataDir: string;
  /**
   * Whether the banner's stream, stderr, is an interactive terminal (`process.stderr.isTTY`), not a pipe
   * or file a log collector reads.
   */
  readonly interactive: boolean;
  readonly logger: Logger;
}

/**
 * A generated first password is meant for the developer, never for log storage. On an interactive
 * terminal the caller prints it, once. Otherwise stderr may well be collected with the structured log
 * lines, so the password goes to `<DATA_DIR>/first-admin-password.txt` (mode 0600, created afresh) and only
 * that file's path is logged. Null when there is nothing to hand over (no seed, or a configured password).
 */
export async function handOverFirstPassword(
  owner: SeededOwner | null,
  options: HandoverOptions,
): Promise<FirstPasswordHandover | null> {
  if (!owner?.generatedPassword) return null;
  const { email } = owner;
  const password = owner.generatedPassword;
  if (options.interactive) return { to: 'terminal', email, password };
  const file = resolve(options.dataDir, FIRST_PASSWORD_FILE);
  try {
    await writePrivateFile(file, `${password}\n`);
  } catch (error) {
    // The account exists either way; the CLI sets a password an operator chooses.
    options.logger.error(
      { err: error, file, email },
      "the first admin's password could not be written: set one with `npm run cli -- admins set-password`",
    );
    return { to: 'nowhere', email };
  }
  options.logger.warn(
    { file, email },
    "the first admin's generated password is in this file, readable by this user only; delete it once used",
  );
  return { to: 'file', email, file };
}

/**
 * Writes `text` to a new file only this user can read: an older file (or a symlink planted there) is
 * removed first, and the exclusive create (`wx`) refuses anything that appears in between.
 */
async function writePrivateFile(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await rm(file, { force: true });
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.chmod(0o600); // whatever the umask
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}
