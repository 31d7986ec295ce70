/**
 * The admin's session token: held in memory and mirrored in this tab's `sessionStorage`, so that a reload
 * keeps the admin signed in while a new tab, or the browser closed and opened again, asks again. Never in
 * `localStorage`, which outlives the tab and is shared by every tab of the origin (decision 044).
 */

export interface HeldSession {
  readonly token: string;
  readonly expiresAt: string;
}

/** Why the last session ended, for the sign-in page to say. */
export type SessionEnd = 'signed-out' | 'expired';

const STORAGE_KEY = 'support-console.session';

let held: HeldSession | null = restore();
let lastEnd: SessionEnd | null = null;
const listeners = new Set<() => void>();

function restore(): HeldSession | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (raw === null) return null;
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { token, expiresAt } = parsed as Record<string, unknown>;
    if (typeof token !== 'string' || typeof expiresAt !== 'string') return null;
    return Date.parse(expiresAt) > Date.now() ? { token, expiresAt } : null;
  } catch {
    // Storage may be off (a private window's policy): the session then lives in memory only.
    return null;
  }
}

function store(session: HeldSession | null): void {
  try {
    if (session === null) sessionStorage.removeItem(STORAGE_KEY);
    else sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  } catch {
    // As above: memory is enough for this tab.
  }
}

function changed(): void {
  for (const listener of listeners) listener();
}

export function heldSession(): HeldSession | null {
  return held;
}

export function sessionEnd(): SessionEnd | null {
  return lastEnd;
}

export function holdSession(session: HeldSession): void {
  held = session;
  lastEnd = null;
  store(session);
  changed();
}

export function endSession(why: SessionEnd): void {
  if (held === null) return;
  held = null;
  lastEnd = why;
  store(null);
  changed();
}

/** For `useSyncExternalStore`. */
export function subscribeToSession(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
