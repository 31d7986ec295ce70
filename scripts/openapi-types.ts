// Writes clients/api/schema.d.ts, the TypeScript types of the service's OpenAPI document, for the SDKs and
// the typed-client tests (decision 032): `npm run openapi:types`. The drift test
// (test/clients/api-types.test.ts) runs the same functions against the running app.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { Registry } from 'prom-client';
import { envSchema, type ResolvedConfig } from '../src/config.ts';
import { buildApp } from '../src/http/app.ts';
import { createLogger } from '../src/http/logger.ts';
import type { HttpServices } from '../src/http/services.ts';

/** Where the generated types live: the `clients/api` package the web SDK imports. */
export const TYPES_FILE = fileURLToPath(new URL('../clients/api/schema.d.ts', import.meta.url));

const HEADER = `${COMMENT_HEADER.trimEnd()}
// From the service's OpenAPI document without devtools (the contract): regenerate with \`npm run openapi:types\`.

`;

/**
 * Stands in for the parts of a started service. Routes read their dependencies when they register but call
 * them only when a request comes, and building the document serves none: a call fails at once, naming the
 * part, rather than the document being built from a half-made service.
 */
function standIn(name: string): unknown {
  return new Proxy(() => undefined, {
    // Not a thenable (so `await` leaves it alone) and no primitive: any other property is another stand-in.
    get: (_target, key) =>
      typeof key === 'symbol' || key === 'then' ? undefined : standIn(`${name}.${key}`),
    apply: () => {
      throw new Error(`${name}() was called while building the OpenAPI document, where nothing runs`);
    },
  });
}

/**
 * The configuration the document is built with: the defaults, devtools off, whatever the shell says, so
 * a developer's ENABLE_DEVTOOLS=1 or COMMENT_MAX_LENGTH never reaches the committed contract.
 */
function documentConfig(): ResolvedConfig {
  const placeholder = 'document-only-secret-never-used-for-signing';
  return {
    ...envSchema.parse({ LOG_LEVEL: 'silent', ENABLE_DEVTOOLS: '0' }),
    JWT_SECRET: `jwt-${placeholder}`,
    ADMIN_SESSION_SECRET: `admin-${placeholder}`,
    FILE_URL_SECRET: `file-${placeholder}`,
    DATA_KEY_SECRET: `data-key-${placeholder}`,
  };
}

/** The routes' dependency object with nothing started: no database, no Intercom, no socket. */
function documentOnlyServices(config: ResolvedConfig): HttpServices {
  const idle = standIn('services') as HttpServices;
  const mib = 1024 * 1024;
  return {
    config,
    logger: createLogger('silent'),
    // Absent, as in a service without Redis or the sandbox: the routes then register what such a service has.
    redis: undefined,
    support: {
      webhookSecret: null,
      sandbox: null,
      intercom: idle.support.intercom,
      contacts: idle.support.contacts,
      cache: idle.support.cache,
      reads: idle.support.reads,
      inbox: idle.support.inbox,
      serviceUrl: () => idle.support.serviceUrl(),
    },
    readiness: [],
    uploadCaps: {
      file: config.MAX_FILE_MB * mib,
      image: config.MAX_IMAGE_MB * mib,
      video: config.MAX_VIDEO_MB * mib,
      imagePixels: config.MAX_IMAGE_PIXELS,
    },
    pace: { interval: (baseMs) => baseMs, factor: () => 1, stop: () => undefined },
    pool: idle.pool,
    store: idle.store,
    waiter: idle.waiter,
    storage: idle.storage,
    changes: idle.changes,
    chat: idle.chat,
    media: idle.media,
    commentPosting: idle.commentPosting,
    hardwareIdKey: idle.hardwareIdKey,
    push: idle.push,
    postMedia: idle.postMedia,
    admin: idle.admin,
  };
}

/** The document `/openapi.json` serves without devtools, built in memory: the app is readied, never listens. */
export async function serviceDocument(): Promise<string> {
  const app = await buildApp(documentOnlyServices(documentConfig()), { registry: new Registry() });
  try {
    await app.ready();
    return JSON.stringify(app.swagger());
  } finally {
    await app.close();
  }
}

/** The TypeScript types of a document (its JSON text), as openapi-typescript writes them: deterministic. */
export async function typesOf(documentJson: string): Promise<string> {
  // Optional is what `required` says: zod lists a defaulted field as required in what the service answers
  // but not in what it accepts, and openapi-typescript's default would make a client send every one.
  return HEADER + astToString(await openapiTS(documentJson, { defaultNonNullable: false }));
}

if (import.meta.main) {
  await writeFile(TYPES_FILE, await typesOf(await serviceDocument()));
  process.stdout.write(`Wrote ${TYPES_FILE}\n`);
}
