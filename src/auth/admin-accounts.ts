import { randomUUID } from 'node:crypto';
import { invalidTransition, notFound } from '../lib/domain-error.ts';
import {
  type AdminChange,
  type AdminRecord,
  bumpSessionVersion,
  changeAdmin,
  findAdminByEmail,
  findAdminById,
  insertAdmin,
  normaliseEmail,
  recordAdminLogin,
  setAdminPasswordHash,
} from './admin-users.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { LoginThrottle } from '../integrations/rate-limiters/login-throttle.ts';
import {
  hashPassword,
  needsRehash,
  passwordProblem,
  verifyAgainstNothing,
  verifyPassword,
} from './passwords.ts';
import type { Role } from './permissions.ts';

/** A new password the policy refuses; `reason` says why without repeating it. */
export class PasswordPolicyError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`the password ${reason}`);
    this.name = 'PasswordPolicyError';
    this.reason = reason;
  }
}

export interface AccountDeps {
  readonly pool: DatabasePool;
  /** Called after an account changed, so cached session checks see it at once. */
  readonly forget?: (adminId: string) => void;
}

async function acceptablePassword(password: string, email: string): Promise<string> {
  const problem = await passwordProblem(password, email);
  if (problem !== null) throw new PasswordPolicyError(problem);
  return hashPassword(password);
}

export interface NewAccount {
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly password: string;
}

export async function createAdmin(deps: AccountDeps, account: NewAccount): Promise<AdminRecord> {
  const passwordHash = await acceptablePassword(account.password, normaliseEmail(account.email));
  const created = await insertAdmin(deps.pool, { id: randomUUID(), ...account, passwordHash });
  if (!created) throw invalidTransition('An admin with this email exists already.');
  return created;
}

function guarded(result: AdminRecord | 'not_found' | 'last_owner'): AdminRecord {
  if (result === 'not_found') throw notFound('No such admin.');
  if (result === 'last_owner') {
    throw invalidTransition('This is the last active owner: make another owner first.');
  }
  return result;
}

/** Name, role or active flag; refused when it would leave no active owner. */
export async function changeAccount(
  deps: AccountDeps,
  id: string,
  change: AdminChange,
): Promise<AdminRecord> {
  const changed = guarded(await changeAdmin(deps.pool, id, change));
  deps.forget?.(id);
  return changed;
}

/** Sets a new password and ends every session of the account. */
export async function setPassword(deps: AccountDeps, id: string, password: string): Promise<AdminRecord> {
  const current = await findAdminById(deps.pool, id);
  if (!current) throw notFound('No such admin.');
  const changed = await setAdminPasswordHash(
    deps.pool,
    id,
    await acceptablePassword(password, current.email),
  );
  if (!changed) throw notFound('No such admin.');
  deps.forget?.(id);
  return changed;
}

export async function logoutEverywhere(deps: AccountDeps, id: string): Promise<void> {
  await bumpSessionVersion(deps.pool, id);
  deps.forget?.(id);
}

export type LoginOutcome =
  | { readonly kind: 'signed_in'; readonly admin: AdminRecord }
  | { readonly kind: 'locked'; readonly retryAfterMs: number }
  | {
      readonly kind: 'refused';
      /** The account the email named, if any: the audit log's target. */
      readonly adminId: string | null;
      readonly reason: 'unknown_email' | 'inactive' | 'wrong_password';
    };

export interface LoginAttempt {
  readonly email: string;
  readonly password: string;
  readonly clientIp: string;
}

async function checkPassword(
  pool: DatabasePool,
  account: string,
  password: string,
): Promise<{ readonly admin: AdminRecord | null; readonly matches: boolean }> {
  const admin = await findAdminByEmail(pool, account);
  const matches = admin
    ? await verifyPassword(admin.passwordHash, password)
    : await verifyAgainstNothing(password);
  return { admin, matches };
}

/**
 * Checks a login. The work is the same whether or not the email names an active account (a dummy hash
 * is verified for an unknown one), so timing tells nothing; the caller answers every refusal alike. The
 * throttle counts the attempt before the password is checked, so a burst gets no more checks than it allows.
 */
export async function attemptLogin(
  deps: AccountDeps & { readonly throttle: LoginThrottle },
  attempt: LoginAttempt,
): Promise<LoginOutcome> {
  const account = normaliseEmail(attempt.email);
  const admission = await deps.throttle.admit(attempt.clientIp, account);
  if (!admission.admitted) return { kind: 'locked', retryAfterMs: admission.retryAfterMs };
  const { admin, matches } = await checkPassword(deps.pool, account, attempt.password).catch(
    async (error: unknown) => {
      // Not a wrong password: the attempt must not count against anyone.
      await admission.abandoned();
      throw error;
    },
  );
  if (!admin || !matches || !admin.active) {
    await admission.failed();
    const reason = !admin ? 'unknown_email' : !matches ? 'wrong_password' : 'inactive';
    return { kind: 'refused', adminId: admin?.id ?? null, reason };
  }
  await admission.succeeded();
  const rehashed = needsRehash(admin.passwordHash) ? await hashPassword(attempt.password) : null;
  await recordAdminLogin(deps.pool, admin, rehashed);
  return { kind: 'signed_in', admin };
}
