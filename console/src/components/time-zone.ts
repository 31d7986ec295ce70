// The admin's own clock for a native `<input type="datetime-local">`, which holds a wall-clock time with no
// zone: the browser's zone is the one the admin thinks in, and the API takes an instant.

/** The browser's IANA zone, as a schedule's hint names it: "Europe/London". */
export function timeZoneName(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** An instant as a datetime-local value in the browser's zone: `2025-03-14T09:30:00`. */
export function toLocalInput(date: Date): string {
  const day = `${String(date.getFullYear())}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * A datetime-local value as an ISO instant, or null when it is not a time. A date and time without an
 * offset is read in the browser's zone (ECMA-262 Date.parse), which is what the admin picked it in.
 */
export function fromLocalInput(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/u.test(value)) return null;
  const millis = Date.parse(value);
  return Number.isNaN(millis) ? null : new Date(millis).toISOString();
}
