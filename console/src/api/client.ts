import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../clients/api/schema.d.ts';
import { endSession, heldSession } from './token.ts';

export type Schemas = components['schemas'];

/** Carries the session token, and ends the session the server no longer takes. */
const sessionMiddleware: Middleware = {
  onRequest({ request }) {
    const session = heldSession();
    if (session !== null) request.headers.set('authorization', `Bearer ${session.token}`);
    return request;
  },
  onResponse({ request, response }) {
    // Expired, signed out everywhere, or the account deactivated: the next action signs the console out.
    // A 401 without a token is a refused login, which the sign-in form shows itself.
    if (response.status === 401 && request.headers.has('authorization')) endSession('expired');
    return response;
  },
};

/**
 * The admin API, typed by the contract's generated `paths` (clients/api): a change of the API that breaks
 * a call here breaks `npm run typecheck`. Same origin only: the service serves the console.
 */
export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(sessionMiddleware);
