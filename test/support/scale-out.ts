import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { freePort } from '../../src/lib/free-port.ts';
import { TEST_SECRETS } from './app.ts';
import { waitUntil } from './eventually.ts';
import { type Spawned, spawnService } from './process.ts';

// Several processes of the service on loopback, as a machine or a cluster runs them: `api` and `worker`
// processes of `node src/main.ts`, the Intercom sandbox in a process of its own, and a round-robin proxy.

export interface ServiceProcess {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  run: Spawned;
  /** Starts it again on the same port with the same settings (after a kill or a stop). */
  restart(): Promise<void>;
  /** SIGTERM, and resolves with the exit code once it has gone. */
  stop(): Promise<number | string>;
}

const ready = async (url: string): Promise<boolean> => {
  try {
    return (await fetch(`${url}/health/ready`)).status === 200;
  } catch {
    return false;
  }
};

/** `node src/main.ts` with `env` (on top of the test secrets), once its /health/ready says 200. */
export async function startServiceProcess(
  name: string,
  env: Record<string, string>,
  options: { readonly waitReady?: boolean } = {},
): Promise<ServiceProcess> {
  const port = Number(env['PORT'] ?? (await freePort()));
  const fullEnv = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    ...TEST_SECRETS,
    PROCESS_NAME: name,
    ...env,
    PORT: String(port),
  };
  const url = `http://127.0.0.1:${port}`;
  const spawn = async () => {
    const run = spawnService(process.execPath, ['src/main.ts'], fullEnv);
    if (options.waitReady !== false) {
      await waitUntil(async () => {
        if (run.child.exitCode !== null) throw new Error(`${name} exited:\n${run.output()}`);
        return ready(url);
      }, 60_000);
    }
    return run;
  };
  const started: ServiceProcess = {
    name,
    url,
    port,
    run: await spawn(),
    async restart() {
      started.run = await spawn();
    },
    async stop() {
      if (started.run.child.exitCode === null && started.run.child.signalCode === null) {
        started.run.child.kill('SIGTERM');
      }
      return started.run.exited;
    },
  };
  return started;
}

export interface StandaloneSandbox {
  readonly run: Spawned;
  readonly settings: {
    readonly SUPPORT_BASE_URL: string;
    readonly SUPPORT_ACCESS_TOKEN: string;
    readonly SUPPORT_CLIENT_SECRET: string;
  };
  /** Calls the sandbox's operator side (`/_sandbox/operator/...`) with its token. */
  operator(method: string, path: string, body?: unknown): Promise<unknown>;
  stop(): Promise<void>;
}

/** `npm run cli -- intercom-sandbox`, its webhooks to `webhookUrl`. */
export async function startStandaloneSandbox(webhookUrl: string): Promise<StandaloneSandbox> {
  const dataDir = await mkdtemp(join(tmpdir(), 'scale-out-sandbox-'));
  const run = spawnService(
    process.execPath,
    ['src/cli.ts', 'intercom-sandbox', '--port', '0', '--webhook-url', webhookUrl],
    { NODE_ENV: 'development', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...TEST_SECRETS },
  );
  await run.waitFor(/SUPPORT_CLIENT_SECRET=\S+/, 30_000);
  const settings = z
    .object({
      SUPPORT_BASE_URL: z.url(),
      SUPPORT_ACCESS_TOKEN: z.string().min(20),
      SUPPORT_CLIENT_SECRET: z.string().min(20),
    })
    .parse(
      Object.fromEntries([...run.stdout().matchAll(/(SUPPORT_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]])),
    );
  return {
    run,
    settings,
    async operator(method, path, body) {
      const response = await fetch(`${settings.SUPPORT_BASE_URL}/_sandbox/operator${path}`, {
        method,
        headers: {
          authorization: `Bearer ${settings.SUPPORT_ACCESS_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`sandbox operator ${path}: ${response.status} ${text}`);
      return text === '' ? null : (JSON.parse(text) as unknown);
    },
    async stop() {
      run.child.kill('SIGTERM');
      await run.exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RoundRobinProxy {
  readonly url: string;
  readonly port: number;
  /** How many requests were passed on to another upstream after one refused or was closing. */
  retried(): number;
  close(): Promise<void>;
}

/**
 * A reverse proxy that sends each request to the next upstream in turn, as a load balancer does, and
 * passes a request on to the next one when an upstream refuses the connection or answers 503 while it
 * closes (nginx's `proxy_next_upstream error http_503`): during a rolling restart no client sees either.
 * It adds the client's address to `X-Forwarded-For`, as the service's TRUST_PROXY_HOPS=1 expects.
 */
export async function startRoundRobinProxy(upstreams: () => readonly number[]): Promise<RoundRobinProxy> {
  let next = 0;
  let retried = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const ports = upstreams();
      const tryFrom = (attempt: number) => {
        const port = ports[next++ % ports.length] ?? 0;
        const headers = {
          ...request.headers,
          'x-forwarded-for': [request.headers['x-forwarded-for'], request.socket.remoteAddress]
            .filter(Boolean)
            .join(', '),
        };
        const upstream = http.request(
          { host: '127.0.0.1', port, method: request.method, path: request.url, headers, agent },
          (answer) => {
            if (
              answer.statusCode === 503 &&
              answer.headers['connection'] === 'close' &&
              attempt < ports.length * 3
            ) {
              answer.resume();
              retried += 1;
              tryFrom(attempt + 1);
              return;
            }
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
          },
        );
        upstream.on('error', () => {
          if (attempt < ports.length * 3) {
            retried += 1;
            setTimeout(() => {
              tryFrom(attempt + 1);
            }, 20);
          } else {
            response.writeHead(502).end();
          }
        });
        upstream.end(body);
      };
      tryFrom(0);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    retried: () => retried,
    async close() {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((done) =>
        server.close(() => {
          done();
        }),
      );
    },
  };
}

export interface TcpRelay {
  /** `redis://` or other URL through the relay. */
  readonly port: number;
  /** Drops every connection through it and refuses new ones until `restore`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** A TCP relay to `127.0.0.1:targetPort`, which a test can cut, as a network fault would. */
export async function startTcpRelay(targetPort: number): Promise<TcpRelay> {
  const open = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const target = connect(targetPort, '127.0.0.1');
    open.add(client).add(target);
    const drop = () => {
      client.destroy();
      target.destroy();
      open.delete(client);
      open.delete(target);
    };
    client.on('error', drop).on('close', drop);
    target.on('error', drop).on('close', drop);
    client.pipe(target).pipe(client);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    cut() {
      down = true;
      for (const socket of open) socket.destroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((done) =>
        server.close(() => {
          done();
        }),
      );
    },
  };
}
