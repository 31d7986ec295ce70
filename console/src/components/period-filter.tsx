import { useSearchParams } from 'react-router';
import type { Period } from '../api/analytics.ts';
import { fieldErrorsOf } from '../api/problem.ts';
import { Field, TextInput } from './fields.tsx';

const PRESETS = [
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
  { days: 365, label: 'Last 12 months' },
] as const;
const DEFAULT_DAYS = 30;
const CHOSEN = 'chosen';

/**
 * The period in the address, so a report can be shared: `?days=7`, or `?from=2025-03-01&to=2025-03-31`
 * for days of the admin's calendar. Nothing named: the last 30 days, as the API's default.
 */
export function usePeriodParam(): readonly [Period, (next: Period) => void] {
  const [search, setSearch] = useSearchParams();
  const days = Number(search.get('days'));
  const period: Period =
    search.has('from') || search.has('to')
      ? { from: search.get('from') ?? '', to: search.get('to') ?? '' }
      : { days: PRESETS.some((preset) => preset.days === days) ? days : DEFAULT_DAYS };
  const choose = (next: Period) => {
    const params = new URLSearchParams(search);
    for (const name of ['days', 'from', 'to']) params.delete(name);
    if ('days' in next) params.set('days', String(next.days));
    else {
      params.set('from', next.from);
      params.set('to', next.to);
    }
    setSearch(params, { replace: true });
  };
  return [period, choose];
}

interface PeriodFilterProps {
  readonly period: Period;
  readonly onChange: (next: Period) => void;
  /** The report's last refusal: a period the API refused is marked at its dates. */
  readonly error: unknown;
}

/** A preset period, or two dates of the admin's own (both included). */
export function PeriodFilter({ period, onChange, error }: PeriodFilterProps) {
  const errors = fieldErrorsOf(error, ['from', 'to'], 'querystring');
  return (
    <>
      <Field label="Period">
        {(ids) => (
          <select
            {...ids}
            value={'days' in period ? String(period.days) : CHOSEN}
            onChange={(event) => {
              const value = event.target.value;
              onChange(value === CHOSEN ? { from: '', to: '' } : { days: Number(value) });
            }}
          >
            {PRESETS.map((preset) => (
              <option key={preset.days} value={preset.days}>
                {preset.label}
              </option>
            ))}
            <option value={CHOSEN}>Chosen dates</option>
          </select>
        )}
      </Field>
      {'days' in period ? null : (
        <>
          <TextInput
            label="From"
            type="date"
            value={period.from}
            max={period.to === '' ? undefined : period.to}
            onChange={(event) => {
              onChange({ ...period, from: event.target.value });
            }}
            errors={errors.get('from')}
          />
          <TextInput
            label="To (included)"
            type="date"
            value={period.to}
            min={period.from === '' ? undefined : period.from}
            onChange={(event) => {
              onChange({ ...period, to: event.target.value });
            }}
            errors={errors.get('to')}
          />
        </>
      )}
    </>
  );
}
