import { type DatabaseTransactionConnection, sql, UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import { roleSchema, type Role } from './permissions.ts';
import type { DatabasePool } from '../db/pool.ts';

// Admin accounts are plain state (decision 003); the rules around them live in src/auth/admin-accounts.ts.
const adminRow = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: roleSchema,
  password_hash: z.string(),
  active: z.boolean(),
  session_version: z.number(),
  created_at: z.coerce.date(),
  updated_at: z.coerce.date(),
  last_login_at: z.coerce.date().nullable(),
});

export interface AdminRecord {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly passwordHash: string;
  readonly active: boolean;
  readonly sessionVersion: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly lastLoginAt: Date | null;
}

const toRecord = (r: z.infer<typeof adminRow>): AdminRecord => ({
  id: r.id,
  email: r.email,
  name: r.name,
  role: r.role,
  passwordHash: r.password_hash,
  active: r.active,
  sessionVersion: r.session_version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  lastLoginAt: r.last_login_at,
});

const columns = sql.fragment`id, email, name, role, password_hash, active, session_version, created_at,
  updated_at, last_login_at`;

/** Emails are kept trimmed and lower-cased: the unique constraint is then case-insensitive. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export async function findAdminById(pool: DatabasePool, id: string): Promise<AdminRecord | null> {
  const row = await pool.maybeOne(sql.prepared('find_admin_by_id', adminRow)`
    SELECT ${columns} FROM admin_users WHERE id = ${id}`);
  return row ? toRecord(row) : null;
}

export async function findAdminByEmail(pool: DatabasePool, email: string): Promise<AdminRecord | null> {
  const row = await pool.maybeOne(sql.type(adminRow)`
    SELECT ${columns} FROM admin_users WHERE email = ${normaliseEmail(email)}`);
  return row ? toRecord(row) : null;
}

export interface AdminPage {
  readonly items: readonly AdminRecord[];
  /** The email of the last item when there may be more. */
  readonly after: string | null;
}

/** Admins in email order, `limit` at a time after the given email. */
export async function listAdmins(
  pool: DatabasePool,
  limit: number,
  after: string | null,
): Promise<AdminPage> {
  const rows = await pool.any(sql.type(adminRow)`
    SELECT ${columns} FROM admin_users
    WHERE ${after === null ? sql.fragment`true` : sql.fragment`email > ${after}`}
    ORDER BY email LIMIT ${limit + 1}`);
  const items = rows.slice(0, limit).map(toRecord);
  return { items, after: rows.length > limit ? (items.at(-1)?.email ?? null) : null };
}

export interface NewAdmin {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly passwordHash: string;
}

const insert = (admin: NewAdmin) => sql.type(adminRow)`
  INSERT INTO admin_users (id, email, name, role, password_hash)
  VALUES (${admin.id}, ${normaliseEmail(admin.email)}, ${admin.name}, ${admin.role}, ${admin.passwordHash})
  RETURNING ${columns}`;

/** The new account, or null when its email is taken. */
export async function insertAdmin(pool: DatabasePool, admin: NewAdmin): Promise<AdminRecord | null> {
  try {
    return toRecord(await pool.one(insert(admin)));
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError) return null;
    throw error;
  }
}

// Changes that could leave no active owner, and the first-owner seeding, take this lock first, so two of
// them never both see "another owner remains" (or "no admin yet").
const lockOwners = (tx: DatabaseTransactionConnection) =>
  tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended('admin_users.owners', 0))`);

/** Inserts the account only while there is no admin at all; null when there is one already. */
export async function insertFirstAdmin(pool: DatabasePool, admin: NewAdmin): Promise<AdminRecord | null> {
  return pool.transaction(async (tx) => {
    await lockOwners(tx);
    const any = await tx.exists(sql.unsafe`SELECT 1 FROM admin_users`);
    return any ? null : toRecord(await tx.one(insert(admin)));
  });
}

export async function countAdmins(pool: DatabasePool): Promise<number> {
  return pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM admin_users`);
}

export type OwnerGuarded = AdminRecord | 'not_found' | 'last_owner';

export interface AdminChange {
  readonly name?: string | undefined;
  readonly role?: Role | undefined;
  readonly active?: boolean | undefined;
}

/**
 * Changes name, role or active flag, refusing any change that would leave no active owner. Deactivation
 * also moves the session version, so tokens from before it stay dead after a later activation.
 */
export async function changeAdmin(
  pool: DatabasePool,
  id: string,
  change: AdminChange,
): Promise<OwnerGuarded> {
  return pool.transaction(async (tx) => {
    await lockOwners(tx);
    const current = await tx.maybeOne(sql.type(adminRow)`
      SELECT ${columns} FROM admin_users WHERE id = ${id} FOR UPDATE`);
    if (!current) return 'not_found';
    const stopsBeingOwner =
      current.role === 'owner' &&
      current.active &&
      ((change.role !== undefined && change.role !== 'owner') || change.active === false);
    if (stopsBeingOwner) {
      const owners = await tx.oneFirst(sql.type(z.object({ n: z.number() }))`
        SELECT count(*)::int AS n FROM admin_users WHERE role = 'owner' AND active`);
      if (owners <= 1) return 'last_owner';
    }
    const deactivates = change.active === false && current.active;
    const row = await tx.one(sql.type(adminRow)`
      UPDATE admin_users SET
        name = COALESCE(${change.name ?? null}::text, name),
        role = COALESCE(${change.role ?? null}::text, role),
        active = COALESCE(${change.active ?? null}::boolean, active),
        session_version = session_version + ${deactivates ? 1 : 0},
        updated_at = now()
      WHERE id = ${id}
      RETURNING ${columns}`);
    return toRecord(row);
  });
}

/** Replaces the password hash and ends every session of the account. */
export async function setAdminPasswordHash(
  pool: DatabasePool,
  id: string,
  passwordHash: string,
): Promise<AdminRecord | null> {
  const row = await pool.maybeOne(sql.type(adminRow)`
    UPDATE admin_users SET password_hash = ${passwordHash}, session_version = session_version + 1,
      password_changed_at = now(), updated_at = now()
    WHERE id = ${id}
    RETURNING ${columns}`);
  return row ? toRecord(row) : null;
}

/** Ends every session of the account (logout everywhere). */
export async function bumpSessionVersion(pool: DatabasePool, id: string): Promise<void> {
  await pool.query(sql.unsafe`
    UPDATE admin_users SET session_version = session_version + 1, updated_at = now() WHERE id = ${id}`);
}

/**
 * Notes a successful login; with `rehashed`, also swaps in a hash made with today's parameters (only
 * if the password was not changed meanwhile).
 */
export async function recordAdminLogin(
  pool: DatabasePool,
  admin: Pick<AdminRecord, 'id' | 'passwordHash'>,
  rehashed: string | null,
): Promise<void> {
  await pool.query(sql.unsafe`
    UPDATE admin_users SET last_login_at = now(),
      password_hash = CASE WHEN password_hash = ${admin.passwordHash}
        THEN COALESCE(${rehashed}::text, password_hash) ELSE password_hash END
    WHERE id = ${admin.id}`);
}
