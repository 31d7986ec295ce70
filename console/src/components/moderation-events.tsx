import type { ModerationEvent } from '../api/history.ts';
import { formatDateTime, formatNumber } from './format.ts';
import { formatInstant } from './instant-input.tsx';

/** The history's actions (src/projections/moderation.ts), in words. */
const actionLabels: Record<string, string> = {
  comment_hidden: 'Comment hidden',
  comment_unhidden: 'Comment shown again',
  comment_deleted: 'Comment deleted',
  comment_reported: 'Comment reported',
  comment_auto_hidden: 'Comment hidden by the report rule',
  comment_rejected: 'Comment refused',
  reports_resolved: 'Reports resolved',
  user_banned: 'User banned',
  ban_lifted: 'Ban lifted',
  moderator_assigned: 'Moderator added',
  moderator_revoked: 'Moderator removed',
};

const actorLabels: Record<string, string> = {
  admin: 'admin',
  moderator: 'channel moderator',
  user: 'user',
  system: 'rule',
};

/** A detail's value as words: instants in the admin's time, lists by their length. */
function detailValue(name: string, value: unknown): string {
  if (name === 'until') return typeof value === 'string' ? formatDateTime(value) : 'until lifted';
  if (Array.isArray(value)) return formatNumber(value.length);
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

const detailNames: Record<string, string> = {
  until: 'Until',
  reportIds: 'Reports',
  action: 'Resolution',
  rule: 'Rule',
  threshold: 'Threshold',
  reports: 'Reports then',
  kind: 'Found',
  snippet: 'Snippet',
  note: 'Note',
};

interface EventCardProps {
  readonly event: ModerationEvent;
  readonly channelTitle: string;
  /** The signed-in admin's id: their own actions say "you". */
  readonly selfId: string;
}

/** One entry of the moderation history: what, when, about whom, by whom and why. */
export function EventCard({ event, channelTitle, selfId }: EventCardProps) {
  const details = Object.entries(event.detail).filter(([name]) => name !== 'hash' && name !== 'reportId');
  const by =
    event.actor.type === 'admin' && event.actor.id === selfId
      ? 'you'
      : `${actorLabels[event.actor.type] ?? event.actor.type} ${event.actor.id ?? '(erased)'}`;
  return (
    <li className="card event-card">
      <h3>
        {actionLabels[event.action] ?? event.action}
        <span className="event-time"> · {formatInstant(event.occurredAt)}</span>
      </h3>
      <dl className="facts">
        <div>
          <dt>Channel</dt>
          <dd>{channelTitle}</dd>
        </div>
        {event.userId === null ? null : (
          <div>
            <dt>User</dt>
            <dd className="user-id">{event.userId}</dd>
          </div>
        )}
        <div>
          <dt>By</dt>
          <dd>{by}</dd>
        </div>
        {event.reason === null ? null : (
          <div>
            <dt>Reason</dt>
            <dd>{event.reason}</dd>
          </div>
        )}
        {details.map(([name, value]) => (
          <div key={name}>
            <dt>{detailNames[name] ?? name}</dt>
            <dd>{detailValue(name, value)}</dd>
          </div>
        ))}
        {event.commentId === null ? null : (
          <div>
            <dt>Comment</dt>
            <dd className="user-id">{event.commentId}</dd>
          </div>
        )}
      </dl>
    </li>
  );
}
