import type { Channel } from '../api/channels.ts';
import { Field } from './fields.tsx';

interface ChannelSelectProps {
  readonly channels: readonly Channel[];
  readonly value: string;
  readonly onChange: (channelId: string) => void;
  readonly label?: string;
  /** An option for no channel in particular, with its words (e.g. "All channels"). */
  readonly anyLabel?: string;
}

/** The channel a page works on, by title. */
export function ChannelSelect({
  channels,
  value,
  onChange,
  label = 'Channel',
  anyLabel,
}: ChannelSelectProps) {
  return (
    <Field label={label}>
      {(ids) => (
        <select
          {...ids}
          value={value}
          onChange={(event) => {
            onChange(event.target.value);
          }}
        >
          {anyLabel === undefined ? null : <option value="">{anyLabel}</option>}
          {channels.map((channel) => (
            <option key={channel.id} value={channel.id}>
              {channel.title}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
