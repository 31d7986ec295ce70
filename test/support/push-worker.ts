// Push workers in a process of their own, so that a test can kill them with SIGKILL mid-broadcast.
// Environment: DATABASE_URL, DATA_KEY_SECRET, and the push settings of the service (FCM_BASE_URL, MESSENGER_API_ROOT,
// MESSENGER_BOT_TOKEN, PUSH_WORKERS, …); prints `ready` once it works the push queues.
import { envSchema, type ResolvedConfig } from '../../src/config.ts';
import { createDatabasePool } from '../../src/db/pool.ts';
import { createLogger } from '../../src/http/logger.ts';
import { startPush } from '../../src/wiring/push.ts';
import { serviceEventStore } from './service-store.ts';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');

// startPush reads no signing secret; the service's own config would carry them.
const config = envSchema.parse({ ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn' }) as ResolvedConfig;
const logger = createLogger(config.LOG_LEVEL);
const pool = await createDatabasePool(url, { maximumPoolSize: 4 });
// A refused device is unregistered through the store, its token sealed as the service seals it.
const dataKeySecret = process.env.DATA_KEY_SECRET;
if (!dataKeySecret) throw new Error('DATA_KEY_SECRET is required');
const store = serviceEventStore(url, dataKeySecret, logger);
const push = await startPush({ config, pool, databaseUrl: url, logger, backstopPollSeconds: 2 });
await push.startWorkers(store);
process.stdout.write('ready\n');
