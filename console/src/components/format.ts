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

/** A wait ahead, in the largest unit that reads well: "in 45 seconds", "in 15 minutes", "in 2 hours". */
export function formatWait(seconds: number): string {
  if (seconds < 60) return relative.format(Math.max(1, Math.ceil(seconds)), 'second');
  if (seconds < 3600) return relative.format(Math.ceil(seconds / 60), 'minute');
  return relative.format(Math.ceil(seconds / 3600), 'hour');
}
