import type { PushProgress as Progress } from '../api/posts.ts';
import { formatNumber } from './format.ts';

const stateNames: Record<Progress['state'], string> = {
  waiting: 'Waiting for its turn in the queue',
  fanning_out: 'Queuing the devices',
  done: 'Done',
};

const outcomes: readonly { key: keyof Progress['devices']; label: string }[] = [
  { key: 'queued', label: 'Still to send' },
  { key: 'sent', label: 'Sent' },
  { key: 'online', label: 'Skipped: reader online' },
  { key: 'muted', label: 'Skipped: channel muted' },
  { key: 'failed', label: 'Failed' },
  { key: 'refused', label: 'Refused this time' },
  { key: 'removed', label: 'Device gone, unregistered' },
  { key: 'notConfigured', label: 'Skipped: no push service' },
];

/** How far a post's push has got: its state, a bar of the devices handled, and each outcome. */
export function PushProgress({ progress }: { readonly progress: Progress }) {
  const { devices } = progress;
  const total = Object.values(devices).reduce((sum, count) => sum + count, 0);
  const handled = total - devices.queued;
  return (
    <div className="push-progress">
      <p>
        <strong>{stateNames[progress.state]}.</strong>{' '}
        {total > 0
          ? `${formatNumber(handled)} of ${formatNumber(total)} devices handled.`
          : progress.state === 'done'
            ? 'No reader had a device to send it to.'
            : 'No device is queued yet.'}
      </p>
      {total === 0 ? null : (
        <progress max={total} value={handled} aria-label="Devices handled">
          {formatNumber(handled)} of {formatNumber(total)}
        </progress>
      )}
      <dl className="facts">
        {outcomes.map(({ key, label }) => (
          <div key={key}>
            <dt>{label}</dt>
            <dd>{formatNumber(devices[key])}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
