import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { matchesIfNoneMatch } from '../if-none-match.ts';
import { HttpProblem } from '../problem.ts';

/** Where the service serves the admin console (decision 044). */
export const CONSOLE_PATH = '/console';

/** The committed build, `console/dist`: beside `src/` here, beside `dist/` in the container image. */
export const CONSOLE_BUILD_DIR = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

/**
 * The console's own code only: no inline script or style, no other origin, never in a frame. Data and
 * blob pictures are for previews of files the admin picks before uploading them.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

interface BuiltFile {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
  readonly cacheControl: string;
}

/** Every file of the build, by its path under /console/, read once: the bundle is a few hundred KB. */
async function readBuild(dir: string): Promise<Map<string, BuiltFile>> {
  const files = new Map<string, BuiltFile>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const body = await readFile(path);
    const name = relative(dir, path).split(sep).join('/');
    files.set(name, {
      body,
      type: contentTypes[extname(name)] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      // Vite names what it emits under assets/ by a hash of the content: a new build is a new name.
      cacheControl: name.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  }
  return files;
}

function send(request: FastifyRequest, reply: FastifyReply, file: BuiltFile): FastifyReply {
  void reply.headers({ 'content-type': file.type, etag: file.etag, 'cache-control': file.cacheControl });
  if (matchesIfNoneMatch(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  return reply.send(file.body);
}

/**
 * The admin console at /console: the built files, and index.html for every other path under it, so that
 * the console's own routes (/console/channels/…) load it and its router takes over. A missing file with an
 * extension (an old asset) is a 404, not the page.
 */
export const consoleRoutes: FastifyPluginAsync<{ readonly dir?: string }> = async (app, options) => {
  const dir = options.dir ?? CONSOLE_BUILD_DIR;
  const files = existsSync(join(dir, 'index.html')) ? await readBuild(dir) : null;
  if (files === null) app.log.warn({ dir }, 'the admin console is not built; /console answers 503');

  app.addHook('onSend', async (_request, reply) => {
    void reply.headers({
      'content-security-policy': CONSOLE_CSP,
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    });
  });

  const serve = async (request: FastifyRequest<{ Params: { '*'?: string } }>, reply: FastifyReply) => {
    if (files === null) {
      throw new HttpProblem(503, 'console_not_built', 'The console is not built: run npm run console:build.');
    }
    const path = request.params['*'] ?? '';
    const file = files.get(path);
    if (file !== undefined) return send(request, reply, file);
    if (extname(path) !== '') throw new HttpProblem(404, 'not_found', 'No such file of the console.');
    const index = files.get('index.html');
    if (index === undefined)
      throw new HttpProblem(503, 'console_not_built', 'The console build has no page.');
    return send(request, reply, index);
  };
  app.get(CONSOLE_PATH, { schema: { hide: true } }, serve);
  app.get(`${CONSOLE_PATH}/*`, { schema: { hide: true } }, serve);
};
