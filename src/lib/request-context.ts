import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The id of the inbound HTTP request whose handling is running, for the log lines of the provider calls
 * it makes (decision 034). The provider clients are made once at start and shared by every request, and
 * the code between a route and a client takes no logger, so the id travels with the async context
 * instead of through every signature. Only `src/http/app.ts` sets it; background loops start outside
 * any request and so have none.
 */
const inbound = new AsyncLocalStorage<string>();

/** Runs `fn` (and everything it sets off) as part of the request `reqId`. */
export function runInRequest<T>(reqId: string, fn: () => T): T {
  return inbound.run(reqId, fn);
}

/** The inbound request's id, or undefined outside one (a background worker, start-up). */
export function currentRequestId(): string | undefined {
  return inbound.getStore();
}

/**
 * pino child-logger formatters that add `reqId` (fastify's name for it) to each line written while a
 * request runs, and nothing otherwise: `logger.child({ provider }, { formatters: withRequestId })`.
 * A field the line already carries wins.
 */
export const withRequestId = {
  log(line: object): object {
    const reqId = inbound.getStore();
    return reqId === undefined ? line : { reqId, ...line };
  },
};
