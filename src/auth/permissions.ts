import { z } from 'zod';

export const roles = ['owner', 'author', 'moderator', 'support', 'auditor'] as const;
export const roleSchema = z.enum(roles).meta({ id: 'AdminRole' });
export type Role = z.infer<typeof roleSchema>;

/**
 * The permission names of API.md, plus `admins.read`, `reasons.read` and `notices.read` for the listings
 * it leaves without one (decision 012). Every `*.read` belongs to the auditor.
 */
export const permissions = [
  'admins.manage',
  'admins.read',
  'analytics.read',
  'audit.read',
  'channels.manage',
  'comments.moderate',
  'complaints.manage',
  'complaints.read',
  'csat.read',
  'moderation.read',
  'notices.read',
  'notices.send',
  'posts.publish',
  'posts.write',
  'reasons.manage',
  'reasons.read',
  // Only the owner's (decision 048): an erasure cannot be undone.
  'users.erase',
  // Only the owner's (decision 048): the export holds all of a user's personal data at once.
  'users.export',
] as const;
export const permissionSchema = z.enum(permissions).meta({ id: 'AdminPermission' });
export type Permission = z.infer<typeof permissionSchema>;

const reads = permissions.filter((p) => p.endsWith('.read'));

const granted: Readonly<Record<Role, readonly Permission[]>> = {
  owner: permissions,
  author: ['posts.write', 'posts.publish'],
  moderator: ['comments.moderate', 'moderation.read'],
  support: [
    'csat.read',
    'complaints.read',
    'complaints.manage',
    'analytics.read',
    'notices.send',
    'notices.read',
  ],
  auditor: reads,
};

export function permissionsOf(role: Role): readonly Permission[] {
  return granted[role];
}

export function roleHas(role: Role, permission: Permission): boolean {
  return granted[role].includes(permission);
}
