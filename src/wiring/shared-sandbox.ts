import { hkdfSync } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config, Secrets } from '../config.ts';
import { type IntercomSandbox, startIntercomSandbox } from '../integrations/intercom/sandbox/index.ts';
import { SANDBOX_RECORDS_FILE } from './support.ts';

/** Stable across restarts: derived from the development secrets kept in DATA_DIR. */
const derived = (secret: string, purpose: string) =>
  Buffer.from(hkdfSync('sha256', secret, '', `standalone-intercom-sandbox-${purpose}`, 24)).toString(
    'base64url',
  );

export interface SharedSandbox {
  readonly sandbox: IntercomSandbox;
  readonly recordsFile: string;
  /** What each process of the service is started with to use it instead of a sandbox of its own. */
  readonly settings: {
    readonly SUPPORT_BASE_URL: string;
    readonly SUPPORT_ACCESS_TOKEN: string;
    readonly SUPPORT_CLIENT_SECRET: string;
  };
}

/**
 * The Intercom sandbox on its own, for several processes of the service to share as they would share
 * Intercom (decision 035): `npm run cli -- intercom-sandbox`, and the supervisor of API_PROCESSES in
 * development. It keeps its records in the same file under DATA_DIR as the sandbox of `npm start`.
 */
export async function startSharedSandbox(
  config: Pick<Config, 'DATA_DIR'> & Pick<Secrets, 'FILE_URL_SECRET'>,
  options: { readonly port: number; readonly webhookUrl: string; readonly logger: Logger },
): Promise<SharedSandbox> {
  const accessToken = derived(config.FILE_URL_SECRET, 'token');
  const clientSecret = derived(config.FILE_URL_SECRET, 'client-secret');
  const recordsFile = join(config.DATA_DIR, SANDBOX_RECORDS_FILE);
  const sandbox = await startIntercomSandbox({
    accessToken,
    clientSecret,
    webhookUrl: options.webhookUrl,
    webhookRetryDelayMs: 5_000,
    recordsFile,
    logger: options.logger,
    port: options.port,
  });
  return {
    sandbox,
    recordsFile,
    settings: {
      SUPPORT_BASE_URL: sandbox.url,
      SUPPORT_ACCESS_TOKEN: accessToken,
      SUPPORT_CLIENT_SECRET: clientSecret,
    },
  };
}
