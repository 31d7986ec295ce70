import { randomBytes } from 'node:crypto';
import { createAdmin } from '../../src/auth/admin-accounts.ts';
import type { Role } from '../../src/auth/permissions.ts';
import type { DatabasePool } from '../../src/db/pool.ts';

export interface TestAdmin {
  readonly id: string;
  readonly email: string;
  readonly password: string;
  readonly role: Role;
}

/** A unique email, so suites sharing Redis counters never meet. */
export const uniqueEmail = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;

/** A password the policy accepts. */
export const goodPassword = () => `Tidal-${randomBytes(9).toString('base64url')}-lantern`;

/** An admin account created through the same code the API uses (a real argon2id hash). */
export async function createTestAdmin(
  pool: DatabasePool,
  role: Role,
  label: string = role,
): Promise<TestAdmin> {
  const email = uniqueEmail(label);
  const password = goodPassword();
  const created = await createAdmin({ pool }, { email, name: `${label} admin`, role, password });
  return { id: created.id, email, password, role };
}

export interface LoginAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Headers;
}

export async function postLogin(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LoginAnswer> {
  const res = await fetch(`${url}/admin/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

/** Signs in and answers the session token. */
export async function loginToken(url: string, admin: Pick<TestAdmin, 'email' | 'password'>): Promise<string> {
  const answer = await postLogin(url, { email: admin.email, password: admin.password });
  if (answer.status !== 200 || typeof answer.body.token !== 'string') {
    throw new Error(`login of ${admin.email} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body.token;
}

/** A JSON request with an admin token; answers status, parsed body (null when empty) and headers. */
export async function adminCall(
  url: string,
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown; headers: Headers }> {
  // A FormData body goes as multipart (fetch sets its content type); anything else as JSON.
  const form = body instanceof FormData;
  const res = await fetch(url + path, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined || form ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text === '' ? null : (JSON.parse(text) as unknown),
    headers: res.headers,
  };
}
