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

// Each setting carries its meaning (`describe`), and `unset` says what its absence means when the schema
// has no plain default. `npm run docs:config` renders both, with the defaults the schema parses, into
// docs/configuration.md and .env.example; test/docs/configuration.test.ts fails when they differ.

const server = {
  NODE_ENV: choice(['development', 'test', 'production'], 'development').describe(
    '`development`, `test` or `production`; production applies the boot guards',
  ),
  HOST: optionalString.describe('the address to listen on'),
  PORT: int(0, 65535, 3000).describe('the port to listen on; `0` takes a free one'),
  LOG_LEVEL: choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info').describe(
    'the pino level, from `fatal` to `trace`, or `silent`',
  ),
  LOG_FORMAT: choice(['auto', 'pretty', 'json'], 'auto').describe(
    '`pretty` (pino-pretty, a development dependency) or `json` lines; `auto` is pretty in development on a terminal',
  ),
  DATA_DIR: z
    .preprocess(unsetIfEmpty, z.string().default('./.data'))
    .describe('local state: the embedded PostgreSQL, generated development secrets, uploads kept on disk'),
};

const storage = {
  DATABASE_URL: optionalUrl.meta({
    description: 'the PostgreSQL connection URL',
    unset: 'an embedded PostgreSQL in `DATA_DIR` (a development dependency), never in production',
  }),
  DATABASE_POOL_SIZE: optionalInt(1, 500).meta({
    description: "connections of this process's database pool",
    unset: 'by its roles (`docs/scale-out.md`)',
  }),
  REDIS_URL: optionalUrl.describe(
    'Redis, through which processes share limits, lockouts, slow mode, presence and the Intercom budget and cache',
  ),
  EVENT_STORE: choice(['postgres', 'kurrentdb'], 'postgres').describe(
    'where events are kept: `postgres` (the `events` table) or `kurrentdb`; read tables stay in PostgreSQL',
  ),
  EVENTSTORE_URL: optionalString.describe(
    'the KurrentDB connection string (`kurrentdb://…`), required when `EVENT_STORE=kurrentdb`',
  ),
  DATA_RETENTION_DAYS: optionalInt(1, 36_500).meta({
    description: 'age in days at which a daily job deletes button clicks and admin logs (decision 028)',
    unset: 'kept forever',
  }),
};

const processes = {
  ROLES: z
    .preprocess(
      (v) => unsetIfEmpty(v) ?? 'api,worker',
      z
        .string()
        .transform((v) => v.split(',').map((role) => role.trim()))
        .pipe(z.array(z.enum(['api', 'worker'])).min(1))
        .transform((roles) => [...new Set(roles)].sort()),
    )
    .describe('what this process does: `api` serves HTTP, `worker` runs projections, processors and jobs'),
  API_PROCESSES: int(1, 64, 1).describe(
    'API processes on this machine sharing `PORT`; above 1, this process supervises them and, by `ROLES`, a worker',
  ),
  PROCESS_NAME: z
    .preprocess(
      unsetIfEmpty,
      z
        .string()
        .regex(/^[\w.+-]{1,64}$/)
        .optional(),
    )
    .meta({
      description: "this process's name in its logs, its metrics and the heartbeat",
      unset: 'its roles joined by `+` (`api+worker`)',
    }),
};

const generatedInDevelopment = 'generated once in development and kept in `DATA_DIR`';

const sessions = {
  JWT_SECRET: optionalString.meta({
    description: 'the HS256 secret the host backend signs client session JWTs with',
    unset: generatedInDevelopment,
  }),
  REQUIRE_JWT_EXP: flag.describe('`1` refuses session JWTs that carry no `exp`'),
  ADMIN_SESSION_SECRET: optionalString.meta({
    description: 'the HMAC key of admin session tokens',
    unset: generatedInDevelopment,
  }),
  ADMIN_SESSION_TTL_MINUTES: int(5, 7 * 24 * 60, 12 * 60).describe('the lifetime of an admin session token'),
  FILE_URL_SECRET: optionalString.meta({
    description: 'the HMAC key of signed file and media links',
    unset: generatedInDevelopment,
  }),
  DATA_KEY_SECRET: optionalString.meta({
    description:
      "the master key that wraps each user's data key (decision 048); losing it loses every sealed field",
    unset: generatedInDevelopment,
  }),
  DATA_KEY_SECRET_PREVIOUS: optionalString.meta({
    description:
      'the master key before a rotation: it still unwraps keys until `npm run cli -- data-keys rewrap` has run',
    unset: 'no rotation under way',
  }),
  FILE_URL_TTL_MINUTES: int(1, 7 * 24 * 60, 15).describe('the lifetime of the signed `/files/:id?t=` links'),
  MEDIA_URL_TTL_MINUTES: int(2, 7 * 24 * 60, 60).describe(
    'the least lifetime of signed links to post media and comment pictures, minted anew every half of it',
  ),
};

const admins = {
  ADMIN_BOOTSTRAP_EMAIL: z
    .preprocess(unsetIfEmpty, z.email().optional())
    .describe(
      'the owner created at start while there is no admin; set with `ADMIN_BOOTSTRAP_PASSWORD` or not at all',
    ),
  ADMIN_BOOTSTRAP_PASSWORD: optionalString.describe(
    "that owner's password, 15 characters or more and not a common one; read only while there is no admin",
  ),
  ADMIN_LOGIN_MAX_FAILURES: int(1, 1000, 5).describe('failed admin logins from one client IP that lock it'),
  ADMIN_LOGIN_WINDOW_MINUTES: int(1, 24 * 60, 15).describe('the window in which those failures count'),
  ADMIN_LOGIN_LOCK_MINUTES: int(1, 24 * 60, 15).describe(
    'how long a locked IP is answered 429 `login_locked`',
  ),
};

const edge = {
  CORS_ORIGINS: z
    .preprocess(
      (v) => (v === undefined ? '' : v),
      z.string().transform((v) =>
        v
          .split(',')
          .map((o) => o.trim())
          .filter((o) => o.length > 0),
      ),
    )
    .meta({
      description: 'the browser origins allowed, exactly, comma-separated; `null` never is',
      unset: 'any localhost origin, outside production',
    }),
  TRUST_PROXY_HOPS: int(0, 20, 0).describe(
    'trusted proxies in front: the client IP is the N-th from the right of `X-Forwarded-For`; `0` takes the socket',
  ),
  API_RATE_LIMIT_PER_MINUTE: int(1, 1_000_000, 600).describe(
    'requests a minute per user (per IP without a session) on `/api/*`',
  ),
  FILES_RATE_LIMIT_PER_MINUTE: int(1, 1_000_000, 1_200).describe(
    'requests a minute per client IP on the signed file links (`/files/*`), counted apart (decision 037)',
  ),
};

const intercom = {
  SUPPORT_ACCESS_TOKEN: optionalString.meta({
    description: 'the Intercom access token',
    unset: 'the built-in Intercom sandbox stands in, outside production',
  }),
  SUPPORT_CLIENT_SECRET: optionalString.meta({
    description: 'the Intercom client secret, which verifies `X-Hub-Signature` on webhooks',
    unset: 'the sandbox derives its own; with a real token every webhook is refused',
  }),
  SUPPORT_REGION: choice(['us', 'eu', 'au'], 'us').describe('the Intercom region: `us`, `eu` or `au`'),
  SUPPORT_BASE_URL: optionalUrl.describe('another Intercom API address, for development'),
  SUPPORT_CACHE_TTL_MS: int(1_000, 86_400_000, 3_600_000).describe(
    'how long a cached Intercom read answers unless a webhook invalidates it; a search each minute catches lost ones',
  ),
  SUPPORT_CALLS_PER_WINDOW: int(1, 25_000, 1_500).describe(
    'Intercom calls all processes together make per 10-second window (Intercom allows 1,666)',
  ),
  PUBLIC_BASE_URL: optionalUrl.meta({
    description: "the service's public address: chat attachments reach Intercom as signed links under it",
    unset: 'the address it listens on',
  }),
};

const uploads = {
  REQUIRE_OBJECT_STORE: flag.describe('`1` requires S3 storage for uploads'),
  S3_BUCKET: optionalString.meta({
    description: 'the S3 bucket for uploads',
    unset: 'uploads stay in `UPLOAD_DIR`',
  }),
  S3_REGION: optionalString.describe("the bucket's region"),
  S3_ENDPOINT: optionalUrl.describe('an S3-compatible endpoint (MinIO, R2, …)'),
  S3_FORCE_PATH_STYLE: flag.describe('`1` addresses the bucket by path, as most S3-compatible stores want'),
  UPLOAD_DIR: optionalString.describe(
    'the folder for uploads when there is no bucket; by default under `DATA_DIR`',
  ),
  MAX_FILE_MB: int(1, 2048, 20).describe('the size cap of a PDF or text file, in MB'),
  MAX_IMAGE_MB: int(1, 2048, 10).describe('the size cap of an image (JPEG, PNG, GIF, WEBP, BMP), in MB'),
  // 50 MP admits full-resolution photos of 48/50 MP phone cameras and 8K screens, and refuses decompression
  // bombs, which declare hundreds of megapixels or more (decision 013).
  MAX_IMAGE_PIXELS: int(1, 1_000_000_000, 50_000_000).describe(
    'most pixels (width × height) an image may declare; more is 413 `image_too_large`, however small the file',
  ),
  MAX_VIDEO_MB: int(1, 2048, 50).describe('the size cap of an MP4 video, in MB'),
};

const pushes = {
  PUSH_SERVICE_ACCOUNT: optionalString.meta({
    description: 'the path of the FCM service-account JSON; a file that is no credential stops production',
    unset: 'no mobile pushes (logged)',
  }),
  PUSH_WORKERS: int(1, 64, 4).describe('FCM batches (of up to 500) one process sends at once'),
  PUSH_SHOW_PREVIEW: flag.describe(
    '`1` quotes the start of the message or post in chat and post pushes; `0` never quotes what was said',
  ),
  // About two chat poll intervals.
  PUSH_ONLINE_WINDOW_MS: int(0, 600_000, 8_000).describe(
    "a chat or ticket push waits this long after the user's last poll, and goes if no poll came (decision 026)",
  ),
  MESSENGER_BOT_TOKEN: optionalString.meta({
    description: 'the Telegram bot token',
    unset: 'no messenger pushes (logged)',
  }),
  MESSENGER_BOT_USERNAME: z
    .preprocess(
      unsetIfEmpty,
      z
        .string()
        .transform((v) => v.replace(/^@/, ''))
        .optional(),
    )
    .meta({
      description: "the bot's username (a leading `@` is dropped), for the button that opens the mini-app",
      unset: 'pushes carry no button',
    }),
  MESSENGER_LINK_BASE: z
    .preprocess(unsetIfEmpty, z.url().default('https://t.me'))
    .describe("the base of that button's link: `<base>/<bot>/app?startapp=chat_<id>`"),
  MESSENGER_MESSAGES_PER_SECOND: int(1, 1_000, 25).describe(
    'Telegram messages a second for the whole process group (Telegram allows about 30)',
  ),
  // Development and tests only: the real firebase-admin and telegraf talk to loopback fakes at these
  // addresses (`npm run cli -- push-fakes` starts both).
  FCM_BASE_URL: optionalUrl.describe('the loopback fake FCM that firebase-admin sends to, for development'),
  MESSENGER_API_ROOT: optionalUrl.describe(
    'the loopback fake Bot API that telegraf sends to, for development',
  ),
};

const clients = {
  POLL_CHAT_MS: int(500, 600_000, 4_000).describe('the chat poll interval `GET /api/config` tells clients'),
  POLL_COMMENTS_MS: int(500, 600_000, 5_000).describe(
    'the comment-thread poll interval `GET /api/config` tells clients',
  ),
  POLL_FEED_MS: int(500, 600_000, 10_000).describe('the `X-Poll-Interval` of the channel feed'),
  FEED_COUNTS_LAG_MS: int(0, 60_000, 5_000).describe(
    'how late the feed may show view, reaction and comment counts; a busy post stays 304 in between',
  ),
  COMMENT_MAX_LENGTH: int(1, 10_000, 2_000).describe(
    'the longest comment in characters, as `GET /api/config` tells clients',
  ),
};

const devtools = {
  ENABLE_DEVTOOLS: flag.describe('`1` mounts `/api/devtools/*`, never in production'),
  ENABLE_DEVTOOLS_RESET_ALL: flag.describe(
    '`1` also mounts `POST /api/devtools/reset-all`, which empties every table and makes the owner again',
  ),
};

/** The settings by subject, in the order docs/configuration.md and .env.example list them. */
export const settingGroups = [
  { title: 'Server and logs', settings: server },
  { title: 'Database, Redis and event store', settings: storage },
  { title: 'Processes', settings: processes },
  { title: 'Sessions and signed links', settings: sessions },
  { title: 'Admin accounts', settings: admins },
  { title: 'Browsers, proxies and rate limits', settings: edge },
  { title: 'Intercom', settings: intercom },
  { title: 'Uploads', settings: uploads },
  { title: 'Pushes', settings: pushes },
  { title: 'What clients are told', settings: clients },
  { title: 'Development tools', settings: devtools },
] as const;

export const envSchema = z
  .object({
    ...server,
    ...storage,
    ...processes,
    ...sessions,
    ...admins,
    ...edge,
    ...intercom,
    ...uploads,
    ...pushes,
    ...clients,
    ...devtools,
  })
  .superRefine((env, ctx) => {
    if (env.EVENT_STORE === 'kurrentdb' && !env.EVENTSTORE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['EVENTSTORE_URL'],
        message: 'is required when `EVENT_STORE=kurrentdb`',
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

/** The signing secrets and the data keys' master key; in development they may be generated (see src/dev/secrets.ts). */
export const secretNames = [
  'JWT_SECRET',
  'ADMIN_SESSION_SECRET',
  'FILE_URL_SECRET',
  'DATA_KEY_SECRET',
] as const;
export type Secrets = Record<(typeof secretNames)[number], string>;
export type ResolvedConfig = Config & Secrets;

export interface GuardFailure {
  readonly name: keyof Config;
  readonly reason: string;
}

/** A production boot guard: the setting it names, why production refuses, and when. */
export interface ProductionGuard extends GuardFailure {
  readonly fails: (config: Config) => boolean;
}

const MIN_SECRET_LENGTH = 32;
const tooShort = (secret: string | undefined) => (secret ?? '').length < MIN_SECRET_LENGTH;

/**
 * The production boot guards of the spec, plus what production must not fall back to (an embedded
 * database, generated secrets), in the order they are reported. A table rather than code so that
 * docs/configuration.md lists them from here.
 */
export const productionGuards: readonly ProductionGuard[] = [
  {
    name: 'REQUIRE_JWT_EXP',
    reason: 'must be 1: session JWTs must carry exp',
    fails: (c) => !c.REQUIRE_JWT_EXP,
  },
  {
    name: 'REQUIRE_OBJECT_STORE',
    reason: 'must be 1: uploads must be durable',
    fails: (c) => !c.REQUIRE_OBJECT_STORE,
  },
  {
    name: 'S3_BUCKET',
    reason: 'must be set when REQUIRE_OBJECT_STORE=1',
    fails: (c) => c.REQUIRE_OBJECT_STORE && !c.S3_BUCKET,
  },
  {
    name: 'CORS_ORIGINS',
    reason: 'must list the allowed browser origins',
    fails: (c) => c.CORS_ORIGINS.length === 0,
  },
  {
    name: 'JWT_SECRET',
    reason: `must be at least ${MIN_SECRET_LENGTH} characters`,
    fails: (c) => tooShort(c.JWT_SECRET),
  },
  {
    name: 'ADMIN_SESSION_SECRET',
    reason: `must be at least ${MIN_SECRET_LENGTH} characters`,
    fails: (c) => tooShort(c.ADMIN_SESSION_SECRET),
  },
  {
    name: 'ADMIN_SESSION_SECRET',
    reason: 'must differ from JWT_SECRET',
    fails: (c) => !tooShort(c.ADMIN_SESSION_SECRET) && c.ADMIN_SESSION_SECRET === (c.JWT_SECRET ?? ''),
  },
  {
    name: 'FILE_URL_SECRET',
    reason: `must be at least ${MIN_SECRET_LENGTH} characters`,
    fails: (c) => tooShort(c.FILE_URL_SECRET),
  },
  {
    name: 'FILE_URL_SECRET',
    reason: 'must differ from JWT_SECRET and ADMIN_SESSION_SECRET',
    fails: (c) =>
      !tooShort(c.FILE_URL_SECRET) &&
      (c.FILE_URL_SECRET === (c.JWT_SECRET ?? '') || c.FILE_URL_SECRET === (c.ADMIN_SESSION_SECRET ?? '')),
  },
  {
    name: 'DATA_KEY_SECRET',
    reason: `must be at least ${MIN_SECRET_LENGTH} characters`,
    fails: (c) => tooShort(c.DATA_KEY_SECRET),
  },
  {
    name: 'DATA_KEY_SECRET',
    reason: 'must differ from the other secrets',
    fails: (c) =>
      !tooShort(c.DATA_KEY_SECRET) &&
      [c.JWT_SECRET, c.ADMIN_SESSION_SECRET, c.FILE_URL_SECRET].includes(c.DATA_KEY_SECRET),
  },
  {
    name: 'SUPPORT_BASE_URL',
    reason: 'must not be set: a custom provider URL could leak the token',
    fails: (c) => Boolean(c.SUPPORT_BASE_URL),
  },
  {
    name: 'FCM_BASE_URL',
    reason: 'must not be set: mobile pushes go to Firebase Cloud Messaging itself',
    fails: (c) => Boolean(c.FCM_BASE_URL),
  },
  {
    name: 'MESSENGER_API_ROOT',
    reason: 'must not be set: a custom Bot API address could leak the bot token',
    fails: (c) => Boolean(c.MESSENGER_API_ROOT),
  },
  {
    name: 'SUPPORT_ACCESS_TOKEN',
    reason: 'must be set: production never stands the sandbox in for Intercom',
    fails: (c) => !c.SUPPORT_ACCESS_TOKEN,
  },
  {
    name: 'SUPPORT_CLIENT_SECRET',
    reason: 'must be set: without it no support webhook can be verified',
    fails: (c) => !c.SUPPORT_CLIENT_SECRET,
  },
  {
    name: 'PUBLIC_BASE_URL',
    reason: 'must be set: chat attachments are links Intercom fetches from it',
    fails: (c) => !c.PUBLIC_BASE_URL,
  },
  {
    name: 'DATABASE_URL',
    reason: 'must be set: production never starts an embedded database',
    fails: (c) => !c.DATABASE_URL,
  },
  {
    name: 'REDIS_URL',
    reason: 'must be set when API_PROCESSES > 1: processes share limits and caches through it',
    fails: (c) => c.API_PROCESSES > 1 && !c.REDIS_URL,
  },
];

/** Every unmet production guard, not only the first. */
export function productionGuardFailures(config: Config): GuardFailure[] {
  return productionGuards
    .filter((guard) => guard.fails(config))
    .map(({ name, reason }) => ({ name, reason }));
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
