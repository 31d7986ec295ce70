import { z } from 'zod';
import type { AdminIdentity } from '../../../auth/admin-sessions.ts';
import { permissionSchema, permissionsOf, roleSchema } from '../../../auth/permissions.ts';

export const adminSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    name: z.string(),
    role: roleSchema,
    permissions: z.array(permissionSchema),
    active: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    lastLoginAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Admin' });
export type AdminView = z.infer<typeof adminSchema>;

export function adminView(admin: AdminIdentity): AdminView {
  return {
    id: admin.id,
    email: admin.email,
    name: admin.name,
    role: admin.role,
    permissions: [...permissionsOf(admin.role)],
    active: admin.active,
    createdAt: admin.createdAt.toISOString(),
    updatedAt: admin.updatedAt.toISOString(),
    lastLoginAt: admin.lastLoginAt?.toISOString() ?? null,
  };
}
