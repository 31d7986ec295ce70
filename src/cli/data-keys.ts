import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { resolveSecrets } from '../dev/secrets.ts';
import type { DataKeys } from '../events/store/data-keys.ts';
import { printable } from '../lib/printable.ts';
import { createDataKeysOf } from '../wiring/event-sourcing.ts';
import { openCliDatabase } from './database.ts';
import { dataKeysUsage } from './usage.ts';

/** Opens the database (migrated) and the users' data keys for `body`, and closes them after. */
export async function withDataKeys(
  config: Config,
  logger: Logger,
  body: (url: string, keys: DataKeys) => Promise<void>,
): Promise<void> {
  const database = await openCliDatabase(config, logger);
  try {
    await migrate(database.url, logger);
    const keys = createDataKeysOf(await resolveSecrets(config), database.url);
    try {
      await body(database.url, keys);
    } finally {
      await keys.close();
    }
  } finally {
    await database.release();
  }
}

/** After a rotation of DATA_KEY_SECRET (decision 048): every data key wrapped under the new master key. */
export async function runDataKeysCommand(config: Config, logger: Logger, args: string[]): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals[0] !== 'rewrap' || positionals.length > 1) {
    throw new Error(
      `unknown data-keys command '${printable(positionals.join(' '))}'; usage:\n${dataKeysUsage}`,
    );
  }
  await withDataKeys(config, logger, async (_url, keys) => {
    // A key wrapped by neither secret throws, naming DATA_KEY_SECRET_PREVIOUS.
    const count = await keys.rewrap();
    process.stdout.write(
      `wrapped ${count} data key${count === 1 ? '' : 's'} anew under DATA_KEY_SECRET; once every process ` +
        'runs with it, DATA_KEY_SECRET_PREVIOUS can go\n',
    );
  });
}
