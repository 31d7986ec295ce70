// Dates, numbers and waits in the admin's own locale (the browser's), through Intl: never hand-made.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const time = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
const number = new Intl.NumberFormat();
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'always' });

export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

export function formatTime(date: Date): string {
  return time.format(date);
}

export function formatNumber(value: number): string {
  return number.format(value);
}

const decimal = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
// The API's series are by UTC day (`2025-03-14`): shown as that day, wherever the admin is.
const utcDay = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
const inUnit = (unit: string) =>
  new Intl.NumberFormat(undefined, { style: 'unit', unit, maximumFractionDigits: 1 });
const inSeconds = inUnit('second');
const inMinutes = inUnit('minute');
const inHours = inUnit('hour');
const inDays = inUnit('day');

/** An average, with two decimals: "4.25". */
export function formatDecimal(value: number): string {
  return decimal.format(value);
}

/** A day of an API series, as an axis shows it: "14 Mar". */
export function formatDay(isoDay: string): string {
  return utcDay.format(new Date(`${isoDay}T00:00:00Z`));
}

/** A duration in the largest unit that reads well: "45 sec", "12.5 min", "3.2 hr", "2 days". */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return inSeconds.format(Math.round(seconds));
  if (seconds < 3600) return inMinutes.format(seconds / 60);
  if (seconds < 86_400) return inHours.format(seconds / 3600);
  return inDays.format(seconds / 86_400);
}

/** A wait ahead, in the largest unit that reads well: "in 45 seconds", "in 15 minutes", "in 2 hours". */
export function formatWait(seconds: number): string {
  if (seconds < 60) return relative.format(Math.max(1, Math.ceil(seconds)), 'second');
  if (seconds < 3600) return relative.format(Math.ceil(seconds / 60), 'minute');
  return relative.format(Math.ceil(seconds / 3600), 'hour');
}
