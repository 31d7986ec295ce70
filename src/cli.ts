import { parseArgs } from 'node:util';
import {
  adminsUsage,
  dataKeysUsage,
  devTokenUsage,
  eventsUsage,
  intercomSandboxUsage,
  migrateUsage,
  moderationUsage,
  privacyUsage,
  projectionsUsage,
  pushFakesUsage,
} from './cli/usage.ts';
import { loadConfig } from './config.ts';
import { pino } from 'pino';
import { createLogger } from './http/logger.ts';
import { printable, printableLines } from './lib/printable.ts';
import { version } from './lib/version.ts';

// Each command's code is loaded when it runs: `--help`, `--version` and `dev-token` answer without the
// database, the queue and the provider clients.

const usage = `Usage: npm run cli -- <command> [--help]
       npm run cli -- --version

Commands:
${migrateUsage}
${devTokenUsage}
${adminsUsage}
${projectionsUsage}
${eventsUsage}
${dataKeysUsage}
${moderationUsage}
${privacyUsage}
${pushFakesUsage}
${intercomSandboxUsage}

In the container image (compiled to dist/; the npm scripts above need src/, which it lacks), run the
CLI with node in the service's environment. The image sets NODE_ENV=production, so dev-token,
push-fakes and intercom-sandbox refuse there:
  docker compose exec service node dist/cli.js <command>
  docker run --rm -it --env-file prod.env support-channel-service node dist/cli.js <command>
`;

/** A command's log lines go to stderr: its stdout is its answer, for a reader or a pipe. */
const cliLogger = (level: string) => createLogger(level, pino.destination({ fd: 2, sync: true }));

async function runMigrate(): Promise<void> {
  const { openCliDatabase } = await import('./cli/database.ts');
  const { migrate } = await import('./db/migrate.ts');
  const config = loadConfig();
  const logger = cliLogger(config.LOG_LEVEL);
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
  const { resolveSecrets } = await import('./dev/secrets.ts');
  const { DEMO_USER_ID, mintSessionToken } = await import('./dev/token.ts');
  const config = await resolveSecrets(loadConfig());
  if (config.NODE_ENV === 'production') throw new Error('dev-token is not available in production');
  const ttl = Number(values.ttl ?? 24 * 3600);
  if (!Number.isInteger(ttl) || ttl <= 0) throw new Error('--ttl must be a positive number of seconds');
  process.stdout.write(`${mintSessionToken(config.JWT_SECRET, values.user ?? DEMO_USER_ID, ttl).token}\n`);
}

const commandUsage: Readonly<Record<string, string>> = {
  migrate: migrateUsage,
  'dev-token': devTokenUsage,
  admins: adminsUsage,
  projections: projectionsUsage,
  events: eventsUsage,
  'data-keys': dataKeysUsage,
  moderation: moderationUsage,
  users: privacyUsage,
  'push-fakes': pushFakesUsage,
  'intercom-sandbox': intercomSandboxUsage,
};

const [command, ...rest] = process.argv.slice(2);
const wantsHelp = rest.includes('--help') || rest.includes('-h');
try {
  if (command === '--version' || command === '-v') process.stdout.write(`${version}\n`);
  else if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(usage);
  } else if (wantsHelp && Object.hasOwn(commandUsage, command)) {
    process.stdout.write(`Usage: npm run cli --\n${commandUsage[command] ?? ''}\n`);
  } else await run(command, rest);
} catch (error) {
  // Messages quote what was typed (an unknown option, an email, a projection's name): shown, never acted on.
  process.stderr.write(`${printableLines(error instanceof Error ? error.message : String(error))}\n`);
  process.exitCode = 1;
}

async function run(command: string, rest: string[]): Promise<void> {
  switch (command) {
    case 'migrate':
      await runMigrate();
      break;
    case 'dev-token':
      await runDevToken(rest);
      break;
    case 'admins': {
      const config = loadConfig();
      const { runAdminsCommand } = await import('./cli/admins.ts');
      await runAdminsCommand(config, cliLogger(config.LOG_LEVEL), rest);
      break;
    }
    case 'projections': {
      const config = loadConfig();
      const { runProjectionsCommand } = await import('./cli/projections.ts');
      await runProjectionsCommand(config, cliLogger(config.LOG_LEVEL), rest);
      break;
    }
    case 'events': {
      const config = loadConfig();
      const { runEventsCommand } = await import('./cli/events.ts');
      await runEventsCommand(config, cliLogger(config.LOG_LEVEL), rest);
      break;
    }
    case 'data-keys': {
      const config = loadConfig();
      const { runDataKeysCommand } = await import('./cli/data-keys.ts');
      await runDataKeysCommand(config, cliLogger(config.LOG_LEVEL), rest);
      break;
    }
    case 'users': {
      const config = loadConfig();
      const { runPrivacyCommand } = await import('./cli/privacy.ts');
      await runPrivacyCommand(config, cliLogger(config.LOG_LEVEL), rest);
      break;
    }
    case 'moderation': {
      const config = loadConfig();
      const { runModerationCommand } = await import('./cli/moderation.ts');
      await runModerationCommand(config, cliLogger(config.LOG_LEVEL), rest);
      break;
    }
    case 'intercom-sandbox': {
      const config = loadConfig();
      const { runIntercomSandbox } = await import('./cli/intercom-sandbox.ts');
      await runIntercomSandbox(config, cliLogger(config.LOG_LEVEL), rest);
      break;
    }
    case 'push-fakes': {
      const { runPushFakes } = await import('./cli/push-fakes.ts');
      await runPushFakes(loadConfig(), rest);
      break;
    }
    default:
      process.stderr.write(`unknown command '${printable(command)}'\n\n${usage}`);
      process.exitCode = 2;
  }
}
