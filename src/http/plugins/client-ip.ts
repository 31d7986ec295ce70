import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyRequest {
    clientIp: string;
  }
}

/**
 * The client's address behind `hops` trusted proxies: the hops-th entry from the right of
 * X-Forwarded-For (each trusted proxy appends the address it saw). With 0 hops the header is ignored,
 * because anyone can send it. Fastify's numeric `trustProxy` is not used: 5.12.1+ ignores it.
 */
export function clientIp(
  forwardedFor: string | string[] | undefined,
  socketAddress: string,
  hops: number,
): string {
  if (hops <= 0 || forwardedFor === undefined) return socketAddress;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
  const chain = header
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a.length > 0);
  if (chain.length === 0) return socketAddress;
  // Fewer entries than trusted hops: every entry was written by a trusted proxy, so the leftmost is
  // the address the first of them saw.
  const candidate = chain[Math.max(chain.length - hops, 0)] ?? '';
  return isIP(candidate) ? candidate : socketAddress;
}

export const clientIpPlugin = fp(
  (app: FastifyInstance, options: { trustProxyHops: number }) => {
    app.decorateRequest('clientIp', '');
    app.addHook('onRequest', (request, _reply, done) => {
      request.clientIp = clientIp(
        request.headers['x-forwarded-for'],
        request.socket.remoteAddress ?? '',
        options.trustProxyHops,
      );
      done();
    });
  },
  { name: 'client-ip' },
);
