import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
} from '../../db/idempotency-keys.ts';
import type { DatabasePool } from '../../db/pool.ts';
import { HttpProblem } from '../problem.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is a command that accepts an Idempotency-Key header (API.md, Conventions). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** The claimed (caller, Idempotency-Key) of this request, until its response is stored. */
    idempotency: { readonly caller: string; readonly key: string } | null;
  }
}

const keyPattern = /^[\x21-\x7e]{1,100}$/;

function fingerprint(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.routeOptions.url ?? ''}\n`)
    .update(JSON.stringify(request.params ?? null))
    .update('\n')
    .update(JSON.stringify(request.body ?? null))
    .digest('base64url');
}

/**
 * Derives the ids of the events a command appends: the caller and Idempotency-Key when one was claimed
 * (so a retry appends nothing new), otherwise unique to this call.
 */
export function commandIdOf(request: FastifyRequest): string {
  const held = request.idempotency;
  return held ? `idempotency-key\u0000${held.caller}\u0000${held.key}` : randomUUID();
}

/**
 * Whose key it is: a client user by their id, an admin as `admin:<id>` (admin ids are UUIDs, user ids come
 * from the host's tokens, so the two never meet). Null for a caller not known yet.
 */
function callerOf(request: FastifyRequest): string | null {
  if (request.userId !== null) return request.userId;
  // `admin` is decorated on /admin routes only.
  const admin = (request as Partial<Pick<FastifyRequest, 'admin'>>).admin;
  return admin ? `admin:${admin.id}` : null;
}

async function claim(pool: DatabasePool, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const header = request.headers['idempotency-key'];
  const caller = callerOf(request);
  if (header === undefined || caller === null) return;
  if (typeof header !== 'string' || !keyPattern.test(header)) {
    throw new HttpProblem(
      400,
      'validation_failed',
      'Idempotency-Key must be 1-100 visible ASCII characters.',
    );
  }
  const outcome = await claimIdempotencyKey(pool, caller, header, fingerprint(request));
  switch (outcome.kind) {
    case 'claimed':
      request.idempotency = { caller, key: header };
      return;
    case 'in_progress':
      throw new HttpProblem(409, 'conflict', 'A request with this Idempotency-Key is still in progress.', {
        'retry-after': '1',
      });
    case 'mismatch':
      throw new HttpProblem(
        422,
        'idempotency_key_reused',
        'This Idempotency-Key was used for a different request.',
      );
    case 'replay':
      void reply.code(outcome.statusCode).header('idempotent-replayed', 'true');
      if (outcome.statusCode >= 400) void reply.type('application/problem+json');
      await reply.send(outcome.response ?? null);
  }
}

/**
 * Idempotency-Key on command routes marked `config: { idempotent: true }`: the first response of a
 * (caller, key) is stored and a retry gets it again, changing nothing (decision 009).
 */
export const idempotencyPlugin = fp(
  (app: FastifyInstance, { pool }: { pool: DatabasePool }) => {
    app.decorateRequest('idempotency', null);
    const store = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const held = request.idempotency;
      if (!held) return payload;
      request.idempotency = null;
      if (reply.statusCode >= 500) {
        await releaseIdempotencyKey(pool, held.caller, held.key);
      } else {
        const body = typeof payload === 'string' && payload.length > 0 ? payload : null;
        await completeIdempotencyKey(pool, held.caller, held.key, reply.statusCode, body);
      }
      return payload;
    };
    // Only on the routes that take a key: every other request (the polls) pays for no hook at all.
    app.addHook('onRoute', (route) => {
      if (!route.config?.idempotent) return;
      const claimHook = (request: FastifyRequest, reply: FastifyReply) => claim(pool, request, reply);
      route.preHandler = [...(route.preHandler === undefined ? [] : [route.preHandler].flat()), claimHook];
      route.onSend = [...(route.onSend === undefined ? [] : [route.onSend].flat()), store];
    });
  },
  { name: 'idempotency' },
);
