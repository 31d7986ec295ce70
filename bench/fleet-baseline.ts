import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveOrchestrator } from './fleet-ipc.ts';
import { DEFAULT_INTERVAL_MS } from './fleet-shape.ts';

/**
 * The trivial 304 server of the fleet bench, in a process of its own (forked by fleet.ts): every poll
 * path answers 200 with an ETag and `X-Poll-Interval` (the service's intervals by route), and 304 when
 * `If-None-Match` matches; every write answers 204. The same fleet against it shows what this machine and
 * the generator can do with no service behind the routes.
 */

const ETAG = 'W/"fleet-baseline"';
const COMMENT_PAGE = JSON.stringify({ items: [], nextCursor: '0' });

function intervalOf(path: string): number {
  if (path.endsWith('/comments')) return DEFAULT_INTERVAL_MS.comments;
  if (path.endsWith('/posts')) return DEFAULT_INTERVAL_MS.feed;
  return DEFAULT_INTERVAL_MS.unread;
}

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    if (request.method !== 'GET') {
      response.writeHead(204).end();
      return;
    }
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const headers = { etag: ETAG, 'x-poll-interval': String(intervalOf(path)) };
    if (request.headers['if-none-match'] === ETAG) {
      response.writeHead(304, headers).end();
      return;
    }
    const body = path.endsWith('/comments') ? COMMENT_PAGE : '{}';
    response.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(body);
  });
});
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  serveOrchestrator({}, { url: `http://127.0.0.1:${port}` }, async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});
