import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { resolveSecrets } from '../dev/secrets.ts';
import { startSharedSandbox } from '../wiring/shared-sandbox.ts';

const DEFAULT_PORT = 3100;

const portOf = (value: string | undefined): number => {
  const n = Number(value ?? DEFAULT_PORT);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error('--port must be a port number');
  return n;
};

/**
 * The Intercom sandbox as a process of its own, so that several replicas of the service share one support
 * provider, as they share Intercom in production (decision 035). It keeps its records in the same file
 * under DATA_DIR as the sandbox `npm start` runs inside the service, and prints the settings each replica
 * needs; a replica given SUPPORT_ACCESS_TOKEN starts no sandbox of its own.
 */
export async function runIntercomSandbox(config: Config, logger: Logger, args: string[]): Promise<void> {
  if (config.NODE_ENV === 'production') throw new Error('intercom-sandbox is not available in production');
  const { values } = parseArgs({
    args,
    options: { port: { type: 'string' }, 'webhook-url': { type: 'string' } },
  });
  const webhookUrl = new URL(values['webhook-url'] ?? `http://127.0.0.1:${config.PORT}/webhooks/support`)
    .href;
  const secrets = await resolveSecrets(config);
  const {
    sandbox,
    recordsFile,
    settings: shared,
  } = await startSharedSandbox(
    { DATA_DIR: config.DATA_DIR, FILE_URL_SECRET: secrets.FILE_URL_SECRET },
    { port: portOf(values.port), webhookUrl, logger },
  );
  const accessToken = shared.SUPPORT_ACCESS_TOKEN;
  const settings = Object.entries(shared).map(([name, value]) => `${name}=${value}`);
  process.stdout.write(
    `Intercom sandbox listening on ${sandbox.url}; records in ${recordsFile}; webhooks to ${webhookUrl}.\n` +
      'Start each replica with these, and with what replicas share anyway: one DATABASE_URL, one\n' +
      'REDIS_URL (so their caches stay fresh together) and the same JWT_SECRET, ADMIN_SESSION_SECRET\n' +
      'and FILE_URL_SECRET:\n\n' +
      `  ${settings.join(' \\\n  ')} \\\n  DATABASE_URL=<url> REDIS_URL=<url> PORT=<port> npm start\n\n` +
      'Play the operator on its own routes (the devtools need the sandbox inside the service), e.g.:\n\n' +
      `  curl -X POST -H "Authorization: Bearer ${accessToken}" -H 'content-type: application/json' \\\n` +
      `    ${sandbox.url}/_sandbox/operator/conversations/<id>/reply -d '{"body":"Hi!"}'\n\n` +
      'Ctrl-C stops it (and saves the records).\n',
  );
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => {
        resolve();
      });
  });
  await sandbox.close();
}
