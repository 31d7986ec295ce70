import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** `/openapi.json` and the `/docs` page, generated from the same zod schemas the routes validate with. */
export const openapiPlugin = fp(
  async (app: FastifyInstance, options: { version: string }) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Support chat and broadcast channel service',
          description: 'The HTTP contract the web and mobile SDKs and the admin panel use.',
          version: options.version,
        },
        components: {
          securitySchemes: {
            sessionJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            adminToken: {
              type: 'http',
              scheme: 'bearer',
              description: 'The token of POST /admin/auth/login',
            },
          },
        },
      },
      transform: jsonSchemaTransform,
      transformObject: jsonSchemaTransformObject,
    });
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
    app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  },
  { name: 'openapi' },
);
