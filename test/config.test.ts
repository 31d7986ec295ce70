import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, productionGuardFailures, envSchema } from '../src/config.ts';
import { useTestDatabase } from './support/database.ts';
import { spawnService } from './support/process.ts';

const productionEnv = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://svc@db.internal:5432/svc',
  REQUIRE_JWT_EXP: '1',
  REQUIRE_OBJECT_STORE: '1',
  S3_BUCKET: 'uploads',
  CORS_ORIGINS: 'https://app.example.com',
  JWT_SECRET: 'j'.repeat(32),
  ADMIN_SESSION_SECRET: 'a'.repeat(32),
  FILE_URL_SECRET: 'f'.repeat(32),
  DATA_KEY_SECRET: 'd'.repeat(32),
  SUPPORT_ACCESS_TOKEN: 'intercom-access-token',
  SUPPORT_CLIENT_SECRET: 'intercom-client-secret',
  PUBLIC_BASE_URL: 'https://support.example.com',
};

function guardNames(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems.map((p) => /production boot guard (\S+):/.exec(p)?.[1] ?? p);
  }
}

describe('production boot guards', () => {
  it('boot when every guard holds', () => {
    expect(guardNames(productionEnv)).toEqual([]);
  });

  const broken: [string, Record<string, string | undefined>, string][] = [
    ['REQUIRE_JWT_EXP unset', { REQUIRE_JWT_EXP: undefined }, 'REQUIRE_JWT_EXP'],
    ['REQUIRE_JWT_EXP=0', { REQUIRE_JWT_EXP: '0' }, 'REQUIRE_JWT_EXP'],
    ['REQUIRE_OBJECT_STORE unset', { REQUIRE_OBJECT_STORE: undefined }, 'REQUIRE_OBJECT_STORE'],
    ['object store required without a bucket', { S3_BUCKET: undefined }, 'S3_BUCKET'],
    ['CORS_ORIGINS empty', { CORS_ORIGINS: '' }, 'CORS_ORIGINS'],
    ['CORS_ORIGINS only commas', { CORS_ORIGINS: ' , ' }, 'CORS_ORIGINS'],
    ['JWT_SECRET short', { JWT_SECRET: 'j'.repeat(31) }, 'JWT_SECRET'],
    ['JWT_SECRET missing', { JWT_SECRET: undefined }, 'JWT_SECRET'],
    ['ADMIN_SESSION_SECRET short', { ADMIN_SESSION_SECRET: 'a'.repeat(31) }, 'ADMIN_SESSION_SECRET'],
    [
      'ADMIN_SESSION_SECRET equal to JWT_SECRET',
      { ADMIN_SESSION_SECRET: 'j'.repeat(32) },
      'ADMIN_SESSION_SECRET',
    ],
    ['FILE_URL_SECRET short', { FILE_URL_SECRET: 'f'.repeat(31) }, 'FILE_URL_SECRET'],
    ['FILE_URL_SECRET equal to JWT_SECRET', { FILE_URL_SECRET: 'j'.repeat(32) }, 'FILE_URL_SECRET'],
    ['FILE_URL_SECRET equal to ADMIN_SESSION_SECRET', { FILE_URL_SECRET: 'a'.repeat(32) }, 'FILE_URL_SECRET'],
    ['DATA_KEY_SECRET short', { DATA_KEY_SECRET: 'd'.repeat(31) }, 'DATA_KEY_SECRET'],
    ['DATA_KEY_SECRET equal to FILE_URL_SECRET', { DATA_KEY_SECRET: 'f'.repeat(32) }, 'DATA_KEY_SECRET'],
    ['a custom SUPPORT_BASE_URL', { SUPPORT_BASE_URL: 'https://proxy.example.com' }, 'SUPPORT_BASE_URL'],
    ['no DATABASE_URL (no embedded database in production)', { DATABASE_URL: undefined }, 'DATABASE_URL'],
    [
      'no Intercom token (no sandbox in production)',
      { SUPPORT_ACCESS_TOKEN: undefined },
      'SUPPORT_ACCESS_TOKEN',
    ],
    ['no webhook secret', { SUPPORT_CLIENT_SECRET: undefined }, 'SUPPORT_CLIENT_SECRET'],
    ['no public address for attachment links', { PUBLIC_BASE_URL: undefined }, 'PUBLIC_BASE_URL'],
  ];

  it.each(broken)('refuse %s, naming exactly that guard', (_name, change, guard) => {
    expect(guardNames({ ...productionEnv, ...change })).toEqual([guard]);
  });

  it('name every unmet guard at once, not only the first', () => {
    const names = guardNames({ NODE_ENV: 'production' });
    expect(names).toEqual([
      'REQUIRE_JWT_EXP',
      'REQUIRE_OBJECT_STORE',
      'CORS_ORIGINS',
      'JWT_SECRET',
      'ADMIN_SESSION_SECRET',
      'FILE_URL_SECRET',
      'DATA_KEY_SECRET',
      'SUPPORT_ACCESS_TOKEN',
      'SUPPORT_CLIENT_SECRET',
      'PUBLIC_BASE_URL',
      'DATABASE_URL',
    ]);
  });

  it('do not apply outside production', () => {
    expect(productionGuardFailures(envSchema.parse({ NODE_ENV: 'production' })).length).toBeGreaterThan(0);
    expect(guardNames({ NODE_ENV: 'development' })).toEqual([]);
  });
});

describe('configuration parsing', () => {
  it('has working defaults for a zero-config start', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: 3000,
      DATA_DIR: './.data',
      UPLOAD_DIR: './.data/uploads',
      EVENT_STORE: 'postgres',
      SUPPORT_REGION: 'us',
      REQUIRE_JWT_EXP: false,
      CORS_ORIGINS: [],
      TRUST_PROXY_HOPS: 0,
      ADMIN_SESSION_TTL_MINUTES: 720,
      ADMIN_LOGIN_MAX_FAILURES: 5,
      ADMIN_LOGIN_WINDOW_MINUTES: 15,
      ADMIN_LOGIN_LOCK_MINUTES: 15,
      POLL_CHAT_MS: 4000,
      POLL_COMMENTS_MS: 5000,
      COMMENT_MAX_LENGTH: 2000,
      FILE_URL_TTL_MINUTES: 15,
      MAX_VIDEO_MB: 50,
      MAX_IMAGE_PIXELS: 50_000_000,
      SUPPORT_CALLS_PER_WINDOW: 1500,
    });
    expect(loadConfig(productionEnv).HOST).toBe('0.0.0.0');
    expect(loadConfig({ MAX_IMAGE_PIXELS: '4096' }).MAX_IMAGE_PIXELS).toBe(4096);
  });

  it('treats empty variables as unset and trims lists', () => {
    const config = loadConfig({
      NODE_ENV: '',
      LOG_LEVEL: '',
      EVENT_STORE: '',
      SUPPORT_REGION: '',
      PORT: '',
      DATABASE_URL: '',
      CORS_ORIGINS: ' https://a.example ,https://b.example ',
      MESSENGER_BOT_USERNAME: '@helpbot',
    });
    expect(config).toMatchObject({
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      EVENT_STORE: 'postgres',
      SUPPORT_REGION: 'us',
    });
    expect(config.PORT).toBe(3000);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.CORS_ORIGINS).toEqual(['https://a.example', 'https://b.example']);
    expect(config.MESSENGER_BOT_USERNAME).toBe('helpbot');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ REQUIRE_JWT_EXP: 'yes' }, 'REQUIRE_JWT_EXP'],
    [{ EVENT_STORE: 'mongo' }, 'EVENT_STORE'],
    [{ EVENT_STORE: 'kurrentdb' }, 'EVENTSTORE_URL'],
    [{ SUPPORT_REGION: 'mars' }, 'SUPPORT_REGION'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ TRUST_PROXY_HOPS: '-1' }, 'TRUST_PROXY_HOPS'],
    [{ DATA_RETENTION_DAYS: '0' }, 'DATA_RETENTION_DAYS'],
    [{ ADMIN_BOOTSTRAP_EMAIL: 'ops@example.com' }, 'ADMIN_BOOTSTRAP_PASSWORD'],
    [{ ADMIN_BOOTSTRAP_PASSWORD: 'a long enough password' }, 'ADMIN_BOOTSTRAP_EMAIL'],
    [{ ADMIN_BOOTSTRAP_EMAIL: 'not an email', ADMIN_BOOTSTRAP_PASSWORD: 'x' }, 'ADMIN_BOOTSTRAP_EMAIL'],
    [{ ADMIN_LOGIN_MAX_FAILURES: '0' }, 'ADMIN_LOGIN_MAX_FAILURES'],
    [{ ADMIN_SESSION_TTL_MINUTES: '1' }, 'ADMIN_SESSION_TTL_MINUTES'],
    [{ REQUIRE_OBJECT_STORE: '1' }, 'S3_BUCKET'],
    [{ FILE_URL_TTL_MINUTES: '0' }, 'FILE_URL_TTL_MINUTES'],
    [{ SUPPORT_CALLS_PER_WINDOW: '0' }, 'SUPPORT_CALLS_PER_WINDOW'],
    [{ MAX_IMAGE_PIXELS: '0' }, 'MAX_IMAGE_PIXELS'],
    [{ MAX_IMAGE_PIXELS: '1000000001' }, 'MAX_IMAGE_PIXELS'],
    [{ MAX_IMAGE_PIXELS: '40 MP' }, 'MAX_IMAGE_PIXELS'],
  ])('refuses %j naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as ConfigError).problems.join('\n')).toContain(name);
    }
  });
});

describe('the process', () => {
  const db = useTestDatabase();

  it('exits 1 in production and prints every unmet guard by name', async () => {
    const run = spawnService(process.execPath, ['src/main.ts'], {
      NODE_ENV: 'production',
      CORS_ORIGINS: 'https://a.example',
    });
    expect(await run.exited).toBe(1);
    for (const guard of [
      'REQUIRE_JWT_EXP',
      'REQUIRE_OBJECT_STORE',
      'JWT_SECRET',
      'ADMIN_SESSION_SECRET',
      'FILE_URL_SECRET',
      'DATA_KEY_SECRET',
      'DATABASE_URL',
    ]) {
      expect(run.output()).toContain(`production boot guard ${guard}`);
    }
    expect(run.output()).not.toContain('production boot guard CORS_ORIGINS');
  });

  it('boots in production when every guard holds, and stops cleanly on SIGTERM', async () => {
    const run = spawnService(process.execPath, ['src/main.ts'], {
      ...productionEnv,
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      PORT: '0',
    });
    const [, url] = await run.waitFor(/Service listening on (http:\/\/\S+)/, 30_000);
    expect((await fetch(`${url ?? ''}/health/ready`)).status).toBe(200);
    expect(run.output()).not.toContain('TOKEN='); // no demo token in production
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});
