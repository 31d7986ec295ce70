import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { IntercomError, parse } from './errors.ts';
import { hasBearer, type SandboxCall } from './gate.ts';
import { operatorInputs, type ActionResult, type SandboxOperator } from './operator.ts';

/** Where the operator side listens over HTTP: a prefix real Intercom does not have. */
export const OPERATOR_PREFIX = '/_sandbox/operator';

const idParams = z.object({ id: z.string().min(1) });
type Action = (id: string, body: unknown) => Promise<ActionResult>;

/**
 * The operator side over HTTP, for the service's devtools (`npm start`): the same actions as the
 * in-process `operator`, a JSON body each. The access token guards it too, though only loopback reaches it.
 */
export function operatorRoutes(
  app: FastifyInstance,
  operator: SandboxOperator,
  accessToken: string,
  calls: readonly SandboxCall[],
): void {
  app.addHook('onRequest', async (request) => {
    if (!hasBearer(request, accessToken))
      throw new IntercomError(401, 'unauthorized', 'Access Token Invalid');
  });

  const actions: Record<string, Action> = {
    'conversations/:id/reply': (id, body) => operator.reply(id, parse(operatorInputs.reply, body)),
    'conversations/:id/note': (id, body) => operator.note(id, parse(operatorInputs.note, body)),
    'conversations/:id/close': (id, body) => operator.close(id, parse(operatorInputs.close, body ?? {})),
    'conversations/:id/snooze': (id, body) => operator.snooze(id, parse(operatorInputs.snooze, body)),
    'conversations/:id/open': (id, body) => operator.open(id, parse(operatorInputs.open, body ?? {})),
    'tickets/:id/state': (id, body) =>
      operator.setTicketState(id, parse(operatorInputs.setTicketState, body)),
    'tickets/:id/resolve': (id, body) =>
      operator.resolveTicket(id, parse(operatorInputs.resolveTicket, body ?? {})),
    'tickets/:id/reply': (id, body) => operator.replyToTicket(id, parse(operatorInputs.reply, body)),
  };
  for (const [path, action] of Object.entries(actions)) {
    app.post(`/${path}`, async (request) => action(parse(idParams, request.params).id, request.body));
  }

  app.post('/tickets', async (request) =>
    operator.createTicket(parse(operatorInputs.createTicket, request.body)),
  );

  app.post('/contacts/:id/archive', async (request, reply) => {
    operator.archiveContact(parse(idParams, request.params).id);
    return reply.code(204).send();
  });

  app.post('/faults', async (request, reply) => {
    const { count, forMs, ...fault } = parse(operatorInputs.fault, request.body);
    if (forMs === undefined) operator.failNext(count ?? 1, fault);
    else operator.failFor(forMs, fault);
    return reply.code(204).send();
  });

  app.delete('/faults', async (_request, reply) => {
    operator.clearFaults();
    return reply.code(204).send();
  });

  // The API calls received (the latest thousands), for tests of a sandbox in a process of its own.
  app.get('/calls', async () => ({ calls }));

  app.get('/webhooks', async () => ({
    notifications: operator.notifications,
    deliveries: operator.deliveries,
  }));

  app.post('/webhooks/:id/redeliver', async (request) =>
    operator.redeliver(parse(idParams, request.params).id),
  );
}
