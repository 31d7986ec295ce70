import { parseArgs } from 'node:util';
import { adminsUsage, runAdminsCommand } from './cli/admins.ts';
import { openCliDatabase } from './cli/database.ts';
import { moderationUsage, runModerationCommand } from './cli/moderation.ts';
import { projectionsUsage, runProjectionsCommand } from './cli/projections.ts';
import { pushFakesUsage, runPushFakes } from './cli/push-fakes.ts';
import { loadConfig } from './config.ts';
import { migrate } from './db/migrate.ts';
import { resolveSecrets } from './dev/secrets.ts';
import { DEMO_USER_ID, mintSessionToken } from './dev/token.ts';
import { createLogger } from './http/logger.ts';

const usage = `Usage: npm run cli -- <command>

Commands:
  migrate                      apply pending migrations (DATABASE_URL, else the embedded database,
                               the running service's if there is one)
  dev-token [--user ID] [--ttl SECONDS]
                               print a client session JWT signed with JWT_SECRET (not in production)
${adminsUsage}
${projectionsUsage}
${moderationUsage}
${pushFakesUsage}
`;

async function runMigrate(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const database = await openCliDatabase(config, logger);
  try {
    const applied = await migrate(database.url, logger);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'no pending migrations\n');
  } finally {
    await database.release();
  }
}

async function runDevToken(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { user: { type: 'string' }, ttl: { type: 'string' } } });
  const config = await resolveSecrets(loadConfig());
  if (config.NODE_ENV === 'production') throw new Error('dev-token is not available in production');
  const ttl = Number(values.ttl ?? 24 * 3600);
  if (!Number.isInteger(ttl) || ttl <= 0) throw new Error('--ttl must be a positive number of seconds');
  process.stdout.write(`${mintSessionToken(config.JWT_SECRET, values.user ?? DEMO_USER_ID, ttl).token}\n`);
}

const [command, ...rest] = process.argv.slice(2);
try {
  switch (command) {
    case 'migrate':
      await runMigrate();
      break;
    case 'dev-token':
      await runDevToken(rest);
      break;
    case 'admins': {
      const config = loadConfig();
      await runAdminsCommand(config, createLogger(config.LOG_LEVEL), rest);
      break;
    }
    case 'projections': {
      const config = loadConfig();
      await runProjectionsCommand(config, createLogger(config.LOG_LEVEL), rest);
      break;
    }
    case 'moderation': {
      const config = loadConfig();
      await runModerationCommand(config, createLogger(config.LOG_LEVEL), rest);
      break;
    }
    case 'push-fakes':
      await runPushFakes(loadConfig(), rest);
      break;
    default:
      process.stderr.write(usage);
      process.exitCode = command === undefined || command === '--help' ? 0 : 2;
  }
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
