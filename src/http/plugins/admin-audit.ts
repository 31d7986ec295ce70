import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuditDetail, type AuditOutcome, appendAdminLog } from '../../auth/admin-logs.ts';
import type { DatabasePool } from '../../db/pool.ts';

export interface AuditSpec {
  /** Stable action name, `<area>.<verb>` (`admins.create`). */
  readonly action: string;
  /** What the route acts on; its id is the `:id` parameter unless the handler names one. */
  readonly target?: string;
}

/** What a handler adds to its audit entry. */
export interface AuditNote {
  targetId?: string;
  /** The actor when the request had no session yet (a login). */
  adminId?: string;
  detail?: AuditDetail;
  outcome?: AuditOutcome;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Declared by every mutating /admin route: each request is recorded in admin_logs, whatever its outcome. */
    audit?: AuditSpec;
  }
  interface FastifyRequest {
    audit: AuditNote;
  }
}

const mutating = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function outcomeOf(statusCode: number): AuditOutcome {
  if (statusCode < 400) return 'success';
  if (statusCode === 401 || statusCode === 403) return 'denied';
  if (statusCode === 429) return 'locked';
  return statusCode < 500 ? 'failed' : 'error';
}

const idParam = (request: FastifyRequest): string | undefined => {
  const params = request.params as Record<string, unknown> | undefined;
  return typeof params?.id === 'string' ? params.id : undefined;
};

/**
 * The audit log: every mutating admin route declares `config.audit`, and each of its requests, allowed,
 * denied or failed, leaves one admin_logs row before the response goes out (so an auditor reading right
 * after sees it). The row carries the request id, which is also the correlation id of any event the
 * request appends.
 */
export function recordAudit(app: FastifyInstance, pool: DatabasePool): void {
  app.decorateRequest('audit', null as unknown as AuditNote);
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (methods.some((m) => mutating.has(m)) && route.config?.audit === undefined) {
      throw new Error(`mutating admin route ${methods.join(',')} ${route.url} declares no audit action`);
    }
  });
  app.addHook('onRequest', (request, _reply, done) => {
    request.audit = {};
    done();
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const spec = request.routeOptions.config.audit;
    if (spec === undefined) return payload;
    const note = request.audit;
    const targetId = note.targetId ?? idParam(request);
    const entry = {
      adminId: request.admin?.id ?? note.adminId ?? null,
      action: spec.action,
      target:
        spec.target !== undefined && targetId !== undefined ? { type: spec.target, id: targetId } : null,
      clientIp: request.clientIp,
      outcome: note.outcome ?? outcomeOf(reply.statusCode),
      statusCode: reply.statusCode,
      correlationId: request.id,
      detail: note.detail ?? {},
    };
    try {
      await appendAdminLog(pool, entry);
    } catch (error) {
      // The action itself is done; losing its record is an operator's problem, loudly.
      request.log.error({ err: error, audit: { ...entry, detail: undefined } }, 'audit entry not written');
    }
    return payload;
  });
}
