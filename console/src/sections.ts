import type { Permission } from './api/session.ts';

/**
 * The console's sections, in the order of the navigation. `permission` is what the section's lists need
 * (null: any signed-in admin); the navigation shows a section only to a role that has it.
 */
export interface Section {
  readonly path: string;
  readonly label: string;
  readonly group: 'Content' | 'Moderation' | 'Support' | 'Administration';
  readonly permission: Permission | null;
}

export const sections: readonly Section[] = [
  { path: 'channels', label: 'Channels', group: 'Content', permission: null },
  { path: 'posts', label: 'Posts', group: 'Content', permission: 'posts.write' },
  { path: 'reports', label: 'Reports', group: 'Moderation', permission: 'comments.moderate' },
  { path: 'comments', label: 'Comments', group: 'Moderation', permission: 'comments.moderate' },
  {
    path: 'bans',
    label: 'Bans and moderators',
    group: 'Moderation',
    permission: 'comments.moderate',
  },
  { path: 'history', label: 'History', group: 'Moderation', permission: 'moderation.read' },
  { path: 'csat', label: 'CSAT', group: 'Support', permission: 'csat.read' },
  { path: 'complaints', label: 'Complaints', group: 'Support', permission: 'complaints.read' },
  { path: 'analytics', label: 'Analytics', group: 'Support', permission: 'analytics.read' },
  { path: 'notices', label: 'System notices', group: 'Support', permission: 'notices.read' },
  { path: 'admins', label: 'Admins', group: 'Administration', permission: 'admins.read' },
  { path: 'reasons', label: 'Reasons', group: 'Administration', permission: 'reasons.read' },
  { path: 'audit-log', label: 'Audit log', group: 'Administration', permission: 'audit.read' },
];
