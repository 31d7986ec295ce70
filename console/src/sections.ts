import type { Permission } from './api/session.ts';

/**
 * The console's sections, in the order of the navigation. `permission` is what the section's lists need
 * (null: any signed-in admin); the navigation shows a section only to a role that has it. `built: false`
 * marks a section still to come: it is listed, and its page says so.
 */
export interface Section {
  readonly path: string;
  readonly label: string;
  readonly group: 'Content' | 'Moderation' | 'Support' | 'Administration';
  readonly permission: Permission | null;
  readonly built: boolean;
}

export const sections: readonly Section[] = [
  { path: 'channels', label: 'Channels', group: 'Content', permission: null, built: true },
  { path: 'posts', label: 'Posts', group: 'Content', permission: 'posts.write', built: true },
  { path: 'reports', label: 'Reports', group: 'Moderation', permission: 'comments.moderate', built: false },
  { path: 'comments', label: 'Comments', group: 'Moderation', permission: 'comments.moderate', built: false },
  {
    path: 'bans',
    label: 'Bans and moderators',
    group: 'Moderation',
    permission: 'comments.moderate',
    built: false,
  },
  { path: 'history', label: 'History', group: 'Moderation', permission: 'moderation.read', built: false },
  { path: 'csat', label: 'CSAT', group: 'Support', permission: 'csat.read', built: false },
  { path: 'complaints', label: 'Complaints', group: 'Support', permission: 'complaints.read', built: false },
  { path: 'analytics', label: 'Analytics', group: 'Support', permission: 'analytics.read', built: false },
  { path: 'notices', label: 'System notices', group: 'Support', permission: 'notices.read', built: false },
  { path: 'admins', label: 'Admins', group: 'Administration', permission: 'admins.read', built: false },
  { path: 'reasons', label: 'Reasons', group: 'Administration', permission: 'reasons.read', built: false },
  { path: 'audit-log', label: 'Audit log', group: 'Administration', permission: 'audit.read', built: false },
];
