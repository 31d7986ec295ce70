import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { finishDocument } from '../openapi/document.ts';
import type { Document } from '../openapi/types.ts';

/** `/openapi.json` and the `/docs` page, generated from the same zod schemas the routes validate with. */
export const openapiPlugin = fp(
  async (app: FastifyInstance, options: { version: string; publicBaseUrl?: string | undefined }) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Support chat and broadcast channel service',
          description:
            'The HTTP contract the web and mobile SDKs and the admin panel use. Errors are ' +
            '`application/problem+json` (RFC 9457) with a stable `code`; polls and admin reads answer 304 ' +
            'to a matching `If-None-Match`; every answer carries `X-Request-Id`.',
          version: options.version,
          license: { name: 'Proprietary' },
        },
        // Relative unless the deployment names its public address: the server that served this document.
        servers: [
          options.publicBaseUrl
            ? { url: options.publicBaseUrl.replace(/\/+$/, ''), description: 'This deployment' }
            : { url: '/', description: 'The service that served this document' },
        ],
        components: {
          securitySchemes: {
            sessionJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            adminToken: {
              type: 'http',
              scheme: 'bearer',
              description: 'The token of POST /admin/auth/login',
            },
            supportSignature: {
              type: 'apiKey',
              in: 'header',
              name: 'X-Hub-Signature',
              description:
                "`sha1=<hex HMAC-SHA1 of the raw body>` keyed with the support app's client secret, as Intercom signs webhooks",
            },
          },
        },
      },
      transform: jsonSchemaTransform,
      transformObject: (input) => finishDocument(jsonSchemaTransformObject(input) as Document),
    });
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
    app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  },
  { name: 'openapi' },
);
