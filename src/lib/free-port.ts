import { createServer } from 'node:net';

/** A TCP port free on `host` now, for a server (or several, sharing it) to bind a moment later. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen({ host, port: 0 }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => {
        if (port === 0) fail(new Error(`no free port on ${host}`));
        else done(port);
      });
    });
  });
}
