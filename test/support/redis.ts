import { Redis } from 'ioredis';

/**
 * Redis for tests from REDIS_URL. Without it (or when it does not answer) the Redis suites skip with
 * a message, except under CI=true, where they must run and a missing Redis is a failure.
 */
export async function connectTestRedis(suite: string): Promise<Redis | null> {
  const url = process.env.REDIS_URL;
  const required = process.env.CI === 'true';
  const unavailable = (why: string) => {
    if (required) throw new Error(`${suite}: Redis is required under CI=true but ${why}`);
    console.warn(`[skip] ${suite}: ${why}; set REDIS_URL to run it`);
    return null;
  };
  if (!url) return unavailable('REDIS_URL is not set');
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (error) {
    redis.disconnect();
    return unavailable(`Redis at ${url} did not answer (${String(error)})`);
  }
}
