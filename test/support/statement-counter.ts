import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket, connect } from 'node:net';

/**
 * A PostgreSQL wire-protocol relay on loopback that records every statement its clients run: a simple
 * query ('Q') or an extended-protocol execute ('E', named after the Parse it binds). Whatever connects
 * through it (slonik, pg pools, LISTEN and lock connections) is counted without any help from the code
 * under test. Plain TCP only: the local server is reached without TLS.
 */
export interface StatementCounter {
  /** A connection string like `databaseUrl` that goes through the relay. */
  readonly url: string;
  /** The statements run so far, as their SQL text, in order of arrival. */
  readonly statements: readonly string[];
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

/** The NUL-terminated string at `at`, and where the next field starts. */
function cString(buffer: Buffer, at: number): [string, number] {
  const end = buffer.indexOf(0, at);
  return [buffer.toString('utf8', at, end), end + 1];
}

function relay(client: Socket, target: { host: string; port: number }, statements: string[]): void {
  const server = connect(target);
  server.on('error', () => client.destroy());
  client.on('error', () => server.destroy());
  server.pipe(client);
  client.on('close', () => server.destroy());

  const prepared = new Map<string, string>();
  const portals = new Map<string, string>();
  let pending = Buffer.alloc(0);
  let started = false;

  const onMessage = (type: string, body: Buffer) => {
    if (type === 'Q') statements.push(cString(body, 0)[0]);
    else if (type === 'P') {
      const [name, next] = cString(body, 0);
      prepared.set(name, cString(body, next)[0]);
    } else if (type === 'B') {
      const [portal, next] = cString(body, 0);
      portals.set(portal, prepared.get(cString(body, next)[0]) ?? '?');
    } else if (type === 'E') statements.push(portals.get(cString(body, 0)[0]) ?? '?');
  };

  client.on('data', (chunk: Buffer) => {
    server.write(chunk);
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (!started) {
        if (pending.length < 8) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        const code = pending.readInt32BE(4);
        started = code !== SSL_REQUEST && code !== GSS_REQUEST;
        pending = pending.subarray(length);
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readInt32BE(1);
      if (pending.length < length + 1) return;
      onMessage(String.fromCharCode(pending[0] ?? 0), pending.subarray(5, length + 1));
      pending = pending.subarray(length + 1);
    }
  });
}

/** Starts a relay in front of the database of `databaseUrl`. */
export async function startStatementCounter(databaseUrl: string): Promise<StatementCounter> {
  const url = new URL(databaseUrl);
  const target = { host: url.hostname, port: Number(url.port || 5432) };
  const statements: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    relay(socket, target, statements);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const relayed = new URL(databaseUrl);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as AddressInfo).port);
  return {
    url: relayed.toString(),
    statements,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) =>
        server.close(() => {
          done();
        }),
      );
    },
  };
}
