import type { InputHTMLAttributes } from 'react';
import { TextInput } from './fields.tsx';

const toTheSecond = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** An instant to the second, in the admin's locale and time zone: a replay's "as of". */
export function formatInstant(iso: string): string {
  return toTheSecond.format(new Date(iso));
}

const pad = (value: number) => String(value).padStart(2, '0');

/** An instant as a `datetime-local` value in the admin's time zone, to the second: `2025-03-01T14:05:09`. */
export function toLocalInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return (
    `${String(date.getFullYear())}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** A `datetime-local` value, read in the admin's time zone, as an ISO instant; '' for none or nonsense. */
export function fromLocalInput(value: string): string {
  if (value === '') return '';
  // A date and time without an offset is local time (ECMA-262's date time string format).
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/** The admin's time zone as a person reads it: "Europe/London (GMT)". */
export function timeZoneLabel(at: Date = new Date()): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const short = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
    .formatToParts(at)
    .find((part) => part.type === 'timeZoneName')?.value;
  return short === undefined || short === zone ? zone : `${zone} (${short})`;
}

type InstantInputProps = Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'type' | 'value' | 'onChange' | 'children'
> & {
  readonly label: string;
  /** The `datetime-local` text as typed. */
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly errors?: readonly string[] | undefined;
};

/** A date and time to the second, in the admin's time zone, which the hint names. */
export function InstantInput({ label, value, onChange, errors, ...input }: InstantInputProps) {
  return (
    <TextInput
      {...input}
      label={label}
      type="datetime-local"
      step={1}
      value={value}
      hint={`Your time zone: ${timeZoneLabel()}.`}
      errors={errors}
      onChange={(event) => {
        onChange(event.target.value);
      }}
    />
  );
}
