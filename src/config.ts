import { z } from 'zod';

// Environment variables are strings; an empty one means "unset" so that `FOO=` in a .env file or
// docker-compose does not turn into an invalid value.
const unsetIfEmpty = (v: unknown) => (v === '' ? undefined : v);
const optionalString = z.preprocess(unsetIfEmpty, z.string().optional());
const choice = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  z.preprocess(unsetIfEmpty, z.enum(values).default(fallback));
const optionalUrl = z.preprocess(unsetIfEmpty, z.url().optional());
const flag = z.preprocess(
  (v) => unsetIfEmpty(v) ?? '0',
  z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true'),
);
const int = (min: number, max: number, fallback: number) =>
  z.preprocess((v) => unsetIfEmpty(v) ?? fallback, z.coerce.number().int().min(min).max(max));
const optionalInt = (min: number, max: number) =>
  z.preprocess(unsetIfEmpty, z.coerce.number().int().min(min).max(max).optional());

export const envSchema = z
  .object({
    NODE_ENV: choice(['development', 'test', 'production'], 'development'),
    HOST: optionalString,
    PORT: int(0, 65535, 3000),
    LOG_LEVEL: choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    // auto: pino-pretty when NODE_ENV=development and stdout is a terminal, JSON lines otherwise.
    LOG_FORMAT: choice(['auto', 'pretty', 'json'], 'auto'),
    DATA_DIR: z.preprocess(unsetIfEmpty, z.string().default('./.data')),
    DATABASE_URL: optionalUrl,
    // Connections of this process's database pool; by default by its roles (docs/scale-out.md).
    DATABASE_POOL_SIZE: optionalInt(1, 500),
    REDIS_URL: optionalUrl,
    // What this process does: `api` serves HTTP, `worker` runs projections, processors and jobs.
    ROLES: z.preprocess(
      (v) => unsetIfEmpty(v) ?? 'api,worker',
      z
        .string()
        .transform((v) => v.split(',').map((role) => role.trim()))
        .pipe(z.array(z.enum(['api', 'worker'])).min(1))
        .transform((roles) => [...new Set(roles)].sort()),
    ),
    // API processes on this machine, sharing PORT; more than one makes this process their supervisor.
    API_PROCESSES: int(1, 64, 1),
    // This process's name in its logs, its metrics and the heartbeat; by default its roles (`api+worker`).
    PROCESS_NAME: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .regex(/^[\w.+-]{1,64}$/)
        .optional(),
    ),
    EVENT_STORE: choice(['postgres', 'kurrentdb'], 'postgres'),
    EVENTSTORE_URL: optionalString,
    JWT_SECRET: optionalString,
    REQUIRE_JWT_EXP: flag,
    ADMIN_SESSION_SECRET: optionalString,
    ADMIN_SESSION_TTL_MINUTES: int(5, 7 * 24 * 60, 12 * 60),
    ADMIN_BOOTSTRAP_EMAIL: z.preprocess(unsetIfEmpty, z.email().optional()),
    ADMIN_BOOTSTRAP_PASSWORD: optionalString,
    ADMIN_LOGIN_MAX_FAILURES: int(1, 1000, 5),
    ADMIN_LOGIN_WINDOW_MINUTES: int(1, 24 * 60, 15),
    ADMIN_LOGIN_LOCK_MINUTES: int(1, 24 * 60, 15),
    FILE_URL_SECRET: optionalString,
    FILE_URL_TTL_MINUTES: int(1, 7 * 24 * 60, 15),
    MEDIA_URL_TTL_MINUTES: int(2, 7 * 24 * 60, 60),
    CORS_ORIGINS: z.preprocess(
      (v) => (v === undefined ? '' : v),
      z.string().transform((v) =>
        v
          .split(',')
          .map((o) => o.trim())
          .filter((o) => o.length > 0),
      ),
    ),
    TRUST_PROXY_HOPS: int(0, 20, 0),
    API_RATE_LIMIT_PER_MINUTE: int(1, 1_000_000, 600),
    FILES_RATE_LIMIT_PER_MINUTE: int(1, 1_000_000, 1_200),
    SUPPORT_ACCESS_TOKEN: optionalString,
    SUPPORT_CLIENT_SECRET: optionalString,
    SUPPORT_REGION: choice(['us', 'eu', 'au'], 'us'),
    SUPPORT_BASE_URL: optionalUrl,
    SUPPORT_CACHE_TTL_MS: int(1_000, 86_400_000, 3_600_000),
    SUPPORT_CALLS_PER_WINDOW: int(1, 25_000, 1_500),
    PUBLIC_BASE_URL: optionalUrl,
    REQUIRE_OBJECT_STORE: flag,
    S3_BUCKET: optionalString,
    S3_REGION: optionalString,
    S3_ENDPOINT: optionalUrl,
    S3_FORCE_PATH_STYLE: flag,
    UPLOAD_DIR: optionalString,
    MAX_FILE_MB: int(1, 2048, 20),
    MAX_IMAGE_MB: int(1, 2048, 10),
    // Width × height an image may declare: 50 MP admits full-resolution photos of 48/50 MP phone cameras
    // and 8K screens, and refuses decompression bombs, which declare hundreds of megapixels or more
    // (decision 013).
    MAX_IMAGE_PIXELS: int(1, 1_000_000_000, 50_000_000),
    MAX_VIDEO_MB: int(1, 2048, 50),
    PUSH_SERVICE_ACCOUNT: optionalString,
    MESSENGER_BOT_TOKEN: optionalString,
    MESSENGER_BOT_USERNAME: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .transform((v) => v.replace(/^@/, ''))
        .optional(),
    ),
    // Development and tests only (refused in production): the real firebase-admin and telegraf talk to
    // loopback fakes at these addresses (`npm run cli -- push-fakes` starts both).
    FCM_BASE_URL: optionalUrl,
    MESSENGER_API_ROOT: optionalUrl,
    MESSENGER_LINK_BASE: z.preprocess(unsetIfEmpty, z.url().default('https://t.me')),
    // Telegram allows about 30 bot messages a second overall; the whole process group keeps under this.
    MESSENGER_MESSAGES_PER_SECOND: int(1, 1_000, 25),
    PUSH_SHOW_PREVIEW: flag,
    // A chat or ticket push waits this long for a user seen polling (about two chat poll intervals).
    PUSH_ONLINE_WINDOW_MS: int(0, 600_000, 8_000),
    PUSH_WORKERS: int(1, 64, 4),
    ENABLE_DEVTOOLS: flag,
    ENABLE_DEVTOOLS_RESET_ALL: flag,
    DATA_RETENTION_DAYS: optionalInt(1, 36_500),
    POLL_CHAT_MS: int(500, 600_000, 4_000),
    POLL_COMMENTS_MS: int(500, 600_000, 5_000),
    POLL_FEED_MS: int(500, 600_000, 10_000),
    FEED_COUNTS_LAG_MS: int(0, 60_000, 5_000),
    COMMENT_MAX_LENGTH: int(1, 10_000, 2_000),
  })
  .superRefine((env, ctx) => {
    if (env.EVENT_STORE === 'kurrentdb' && !env.EVENTSTORE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['EVENTSTORE_URL'],
        message: 'is required when EVENT_STORE=kurrentdb',
      });
    }
    if ((env.ADMIN_BOOTSTRAP_EMAIL === undefined) !== (env.ADMIN_BOOTSTRAP_PASSWORD === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [
          env.ADMIN_BOOTSTRAP_EMAIL === undefined ? 'ADMIN_BOOTSTRAP_EMAIL' : 'ADMIN_BOOTSTRAP_PASSWORD',
        ],
        message: 'ADMIN_BOOTSTRAP_EMAIL and ADMIN_BOOTSTRAP_PASSWORD are set together or not at all',
      });
    }
    // Production reports this among its boot guards, which list every unmet guard at once.
    if (env.REQUIRE_OBJECT_STORE && !env.S3_BUCKET && env.NODE_ENV !== 'production') {
      ctx.addIssue({
        code: 'custom',
        path: ['S3_BUCKET'],
        message: 'is required when REQUIRE_OBJECT_STORE=1',
      });
    }
  })
  .transform((env) => ({
    ...env,
    // Containers must listen on every interface; a developer's laptop should not.
    HOST: env.HOST ?? (env.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1'),
    UPLOAD_DIR: env.UPLOAD_DIR ?? `${env.DATA_DIR}/uploads`,
  }));

export type Config = z.infer<typeof envSchema>;

/** The three signing secrets; in development they may be generated (see dev-secrets.ts). */
export const secretNames = ['JWT_SECRET', 'ADMIN_SESSION_SECRET', 'FILE_URL_SECRET'] as const;
export type Secrets = Record<(typeof secretNames)[number], string>;
export type ResolvedConfig = Config & Secrets;

export interface GuardFailure {
  readonly name: string;
  readonly reason: string;
}

const MIN_SECRET_LENGTH = 32;

/**
 * The production boot guards of the spec, plus what production must not fall back to (an embedded
 * database, generated secrets). Returns every unmet guard, not only the first.
 */
export function productionGuardFailures(config: Config): GuardFailure[] {
  const failures: GuardFailure[] = [];
  const fail = (name: string, reason: string) => failures.push({ name, reason });
  if (!config.REQUIRE_JWT_EXP) fail('REQUIRE_JWT_EXP', 'must be 1: session JWTs must carry exp');
  if (!config.REQUIRE_OBJECT_STORE) fail('REQUIRE_OBJECT_STORE', 'must be 1: uploads must be durable');
  else if (!config.S3_BUCKET) fail('S3_BUCKET', 'must be set when REQUIRE_OBJECT_STORE=1');
  if (config.CORS_ORIGINS.length === 0) fail('CORS_ORIGINS', 'must list the allowed browser origins');
  const jwt = config.JWT_SECRET ?? '';
  const admin = config.ADMIN_SESSION_SECRET ?? '';
  const file = config.FILE_URL_SECRET ?? '';
  if (jwt.length < MIN_SECRET_LENGTH) fail('JWT_SECRET', `must be at least ${MIN_SECRET_LENGTH} characters`);
  if (admin.length < MIN_SECRET_LENGTH)
    fail('ADMIN_SESSION_SECRET', `must be at least ${MIN_SECRET_LENGTH} characters`);
  else if (admin === jwt) fail('ADMIN_SESSION_SECRET', 'must differ from JWT_SECRET');
  if (file.length < MIN_SECRET_LENGTH)
    fail('FILE_URL_SECRET', `must be at least ${MIN_SECRET_LENGTH} characters`);
  else if (file === jwt || file === admin)
    fail('FILE_URL_SECRET', 'must differ from JWT_SECRET and ADMIN_SESSION_SECRET');
  if (config.SUPPORT_BASE_URL)
    fail('SUPPORT_BASE_URL', 'must not be set: a custom provider URL could leak the token');
  if (config.FCM_BASE_URL)
    fail('FCM_BASE_URL', 'must not be set: mobile pushes go to Firebase Cloud Messaging itself');
  if (config.MESSENGER_API_ROOT)
    fail('MESSENGER_API_ROOT', 'must not be set: a custom Bot API address could leak the bot token');
  if (!config.SUPPORT_ACCESS_TOKEN)
    fail('SUPPORT_ACCESS_TOKEN', 'must be set: production never stands the sandbox in for Intercom');
  if (!config.SUPPORT_CLIENT_SECRET)
    fail('SUPPORT_CLIENT_SECRET', 'must be set: without it no support webhook can be verified');
  if (!config.PUBLIC_BASE_URL)
    fail('PUBLIC_BASE_URL', 'must be set: chat attachments are links Intercom fetches from it');
  if (!config.DATABASE_URL) fail('DATABASE_URL', 'must be set: production never starts an embedded database');
  if (config.API_PROCESSES > 1 && !config.REDIS_URL)
    fail('REDIS_URL', 'must be set when API_PROCESSES > 1: processes share limits and caches through it');
  return failures;
}

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Parses the environment once; throws ConfigError listing every problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`),
    );
  }
  const config = parsed.data;
  if (config.NODE_ENV === 'production') {
    const failures = productionGuardFailures(config);
    if (failures.length > 0) {
      throw new ConfigError(failures.map((f) => `production boot guard ${f.name}: ${f.reason}`));
    }
  }
  return config;
}
