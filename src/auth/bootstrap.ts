import { randomUUID } from 'node:crypto';
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
