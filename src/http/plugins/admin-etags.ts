import type { FastifyInstance } from 'fastify';
import { weakEtag } from '../../lib/digest.ts';
import { matchesIfNoneMatch } from '../if-none-match.ts';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * A GET whose JSON answer is personal data to save as a file (a user's export): it is sent with
     * `Cache-Control: no-store` and never tagged or turned into a 304, so no cache keeps a copy or can
     * answer for it. The route names the file in `Content-Disposition`; the OpenAPI document declares both
     * headers (`src/http/openapi/responses.ts`).
     */
    'x-download'?: true;
  }
}

/**
 * Admin reads answer as polls do (API.md), without the pace: a JSON 200 to a GET carries an ETag over
 * the bytes it sends, and a request whose If-None-Match names it gets 304 with no body, so a console list
 * polled while nothing changed costs no body (decision 046). Every other answer is left alone: other
 * methods, other statuses, files and streams. A download of personal data (`x-download`) gets `no-store`
 * instead of a tag. No GET under /admin answers a token (sign-in is a POST).
 * The OpenAPI document declares the 304 and the ETag on every admin GET with a JSON 200
 * (`src/http/openapi/responses.ts`).
 */
export function tagAdminReads(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.routeOptions.schema?.['x-download'] === true) {
      void reply.header('cache-control', 'no-store');
      return payload;
    }
    if (request.method !== 'GET' || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !type.startsWith('application/json')) return payload;
    const etag = weakEtag(payload);
    void reply.headers({ etag, 'cache-control': 'private, no-cache' });
    if (!matchesIfNoneMatch(request.headers['if-none-match'], etag)) return payload;
    reply.removeHeader('content-type');
    void reply.code(304);
    return null;
  });
}
