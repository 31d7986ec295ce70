import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { type Config, type ResolvedConfig, type Secrets, secretNames } from '../config.ts';

const storedSecrets = z.object({
  JWT_SECRET: z.string().min(32),
  ADMIN_SESSION_SECRET: z.string().min(32),
  FILE_URL_SECRET: z.string().min(32),
  // Came later than the other three: a file from before it gets one added.
  DATA_KEY_SECRET: z.string().min(32).optional(),
});

const SECRETS_FILE = 'dev-secrets.json';

/**
 * Outside production, a missing signing secret is generated once and kept in DATA_DIR so a second
 * `npm start` accepts the tokens the first one printed. Production never gets here: its boot guards
 * demand every secret.
 */
export async function resolveSecrets(config: Config): Promise<ResolvedConfig> {
  const given = {
    JWT_SECRET: config.JWT_SECRET,
    ADMIN_SESSION_SECRET: config.ADMIN_SESSION_SECRET,
    FILE_URL_SECRET: config.FILE_URL_SECRET,
    DATA_KEY_SECRET: config.DATA_KEY_SECRET,
  };
  if (given.JWT_SECRET && given.ADMIN_SESSION_SECRET && given.FILE_URL_SECRET && given.DATA_KEY_SECRET) {
    return { ...config, ...given } as ResolvedConfig;
  }
  if (config.NODE_ENV === 'production') {
    throw new Error('production never generates secrets');
  }
  const file = join(config.DATA_DIR, SECRETS_FILE);
  let read: z.infer<typeof storedSecrets> | undefined;
  try {
    read = storedSecrets.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch {
    read = undefined;
  }
  const generate = () => randomBytes(32).toString('base64url');
  const stored: Secrets = read
    ? { ...read, DATA_KEY_SECRET: read.DATA_KEY_SECRET ?? generate() }
    : (Object.fromEntries(secretNames.map((n) => [n, generate()])) as Secrets);
  if (read?.DATA_KEY_SECRET === undefined) {
    await mkdir(config.DATA_DIR, { recursive: true });
    await writeFile(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  }
  return {
    ...config,
    JWT_SECRET: given.JWT_SECRET ?? stored.JWT_SECRET,
    ADMIN_SESSION_SECRET: given.ADMIN_SESSION_SECRET ?? stored.ADMIN_SESSION_SECRET,
    FILE_URL_SECRET: given.FILE_URL_SECRET ?? stored.FILE_URL_SECRET,
    DATA_KEY_SECRET: given.DATA_KEY_SECRET ?? stored.DATA_KEY_SECRET,
  };
}
