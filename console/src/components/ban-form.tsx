import { type SubmitEvent, useState } from 'react';
import { fieldErrorsOf } from '../api/problem.ts';
import { Field, FormProblem, TextArea, TextInput } from './fields.tsx';

/** How long a ban can last, from now; the last one holds until a moderator lifts it. */
const DURATIONS = [
  { id: '1h', hours: 1, amount: 1, unit: 'hour' },
  { id: '1d', hours: 24, amount: 1, unit: 'day' },
  { id: '7d', hours: 7 * 24, amount: 7, unit: 'day' },
  { id: '30d', hours: 30 * 24, amount: 30, unit: 'day' },
  { id: 'lifted', hours: null, amount: 0, unit: 'day' },
] as const;

type DurationId = (typeof DURATIONS)[number]['id'];

/** "1 hour", "7 days": the admin's own words for a length of time. */
const durationLabel = ({ hours, amount, unit }: (typeof DURATIONS)[number]) =>
  hours === null
    ? 'Until lifted'
    : new Intl.NumberFormat(undefined, { style: 'unit', unit, unitDisplay: 'long' }).format(amount);

export interface BanDraft {
  readonly userId: string;
  /** When the ban ends (ISO), or absent: until lifted. */
  readonly until?: string | undefined;
  readonly reason: string;
}

interface BanFormProps {
  /** Who to ban, when the admin came from a comment ("Ban the author"). */
  readonly userId: string;
  readonly pending: boolean;
  readonly error: unknown;
  readonly onSubmit: (ban: BanDraft) => void;
}

/** A ban of one user from commenting in the channel, for a length of time, with the reason the log keeps. */
export function BanForm({ userId: initialUserId, pending, error, onSubmit }: BanFormProps) {
  const [userId, setUserId] = useState(initialUserId);
  const [duration, setDuration] = useState<DurationId>('1d');
  const [reason, setReason] = useState('');
  const errors = fieldErrorsOf(error, ['userId', 'until', 'reason']);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const hours = DURATIONS.find((option) => option.id === duration)?.hours ?? null;
    // The end is counted from the moment of the click, as the admin reads "for 1 day".
    const until = hours === null ? undefined : new Date(Date.now() + hours * 3_600_000).toISOString();
    onSubmit({ userId, until, reason });
  };
  return (
    <form className="ban-form" onSubmit={submit} noValidate>
      <div className="field-row">
        <TextInput
          label="User id"
          hint="The app's id of the user, as comments show it."
          value={userId}
          autoComplete="off"
          spellCheck={false}
          onChange={(event) => {
            setUserId(event.target.value);
          }}
          errors={errors.get('userId')}
        />
        <Field label="Duration" errors={errors.get('until')}>
          {(ids) => (
            <select
              {...ids}
              value={duration}
              onChange={(event) => {
                setDuration(event.target.value as DurationId);
              }}
            >
              {DURATIONS.map((option) => (
                <option key={option.id} value={option.id}>
                  {durationLabel(option)}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <TextArea
        label="Reason"
        hint="Kept in the moderation history."
        rows={2}
        maxLength={500}
        value={reason}
        onChange={(event) => {
          setReason(event.target.value);
        }}
        errors={errors.get('reason')}
      />
      <FormProblem error={error} unplaced={errors.get('')} />
      <button type="submit" className="primary" disabled={pending}>
        {pending ? 'Banning…' : 'Ban user'}
      </button>
    </form>
  );
}
