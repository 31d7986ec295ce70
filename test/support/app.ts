import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { envSchema, type ResolvedConfig } from '../../src/config.ts';
import type { DatabasePool } from '../../src/db/pool.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/http/logger.ts';

export const TEST_SECRETS = {
  JWT_SECRET: 'test-jwt-secret-0123456789abcdefghijklmnop',
  ADMIN_SESSION_SECRET: 'test-admin-secret-0123456789abcdefghijklmn',
  FILE_URL_SECRET: 'test-file-secret-0123456789abcdefghijklmnop',
};

export type EnvOverrides = Record<string, string | undefined>;

export function testConfig(env: EnvOverrides = {}): ResolvedConfig {
  const parsed = envSchema.parse({ NODE_ENV: 'test', LOG_LEVEL: 'info', ...TEST_SECRETS, ...env });
  return parsed as ResolvedConfig;
}

/** Collects the JSON log lines an app writes, so tests can read what would reach log storage. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export interface RunningApp {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly logs: LogCapture;
  close(): Promise<void>;
}

export interface StartOptions {
  readonly pool: DatabasePool;
  readonly env?: EnvOverrides;
  readonly redis?: Redis;
  /** Extra routes for tests of the HTTP conventions themselves (e.g. a handler that throws). */
  readonly extend?: (app: FastifyInstance) => void;
}

/** The real app on a real loopback socket. */
export async function startApp(options: StartOptions): Promise<RunningApp> {
  const logs = new LogCapture();
  const config = testConfig(options.env);
  const app = await buildApp({
    config,
    pool: options.pool,
    redis: options.redis,
    logger: createLogger(config.LOG_LEVEL, logs),
  });
  options.extend?.(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, url: `http://127.0.0.1:${port}`, logs, close: () => app.close() };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
