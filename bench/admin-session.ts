import { z } from 'zod';
import { createAdmin, setPassword } from '../src/auth/admin-accounts.ts';
import { generatePassword } from '../src/auth/passwords.ts';
import { findAdminByEmail } from '../src/auth/admin-users.ts';
import type { DatabasePool } from '../src/db/pool.ts';
import type { Target } from './load.ts';
import { assertAnswers } from './targets.ts';

export interface Credentials {
  readonly email: string;
  readonly password: string;
}

const OWNER_EMAIL = 'bench-owner@bench.example';

/**
 * The bench's owner account, with a password made for this run: no one knows it afterwards, which
 * matters on a `DATABASE_URL` database (it keeps the account, from an earlier run too).
 */
export async function seedOwner(pool: DatabasePool): Promise<Credentials> {
  const password = generatePassword();
  const existing = await findAdminByEmail(pool, OWNER_EMAIL);
  if (existing) await setPassword({ pool }, existing.id, password);
  else await createAdmin({ pool }, { email: OWNER_EMAIL, name: 'Bench owner', role: 'owner', password });
  return { email: OWNER_EMAIL, password };
}

export function postLogin(base: string, credentials: Credentials, signal: AbortSignal): Promise<Response> {
  return fetch(`${base}/admin/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
    signal,
  });
}

const session = z.object({ token: z.string() });

/** `GET /admin/me` with a session token of the owner, checked once to answer with the owner's email. */
export async function adminMeTarget(base: string, owner: Credentials, signal: AbortSignal): Promise<Target> {
  const response = await postLogin(base, owner, signal);
  const body: unknown = await response.json();
  const signedIn = session.safeParse(body);
  if (response.status !== 200 || !signedIn.success) {
    throw new Error(`login failed: ${response.status} ${JSON.stringify(body)}`);
  }
  const target = { url: `${base}/admin/me`, headers: { authorization: `Bearer ${signedIn.data.token}` } };
  const me = z.object({ email: z.literal(owner.email) });
  await assertAnswers(target, (answer) => me.safeParse(answer).success);
  return target;
}
