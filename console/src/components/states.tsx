import type { ReactNode } from 'react';
import { messageOf } from '../api/problem.ts';

/** Shown while a page's data is on its way; announced politely to screen readers. */
export function Loading({ what }: { readonly what: string }) {
  return (
    <p className="state" role="status">
      Loading {what}…
    </p>
  );
}

/** A list with nothing in it yet, and what to do about it. */
export function Empty({ children }: { readonly children: ReactNode }) {
  return <div className="state empty">{children}</div>;
}

/** An error a page could not get past, from the problem's `detail` when there is one. */
export function ErrorNotice({ error }: { readonly error: unknown }) {
  return (
    <p className="notice error" role="alert">
      {messageOf(error)}
    </p>
  );
}

/** A confirmation of what the server did. */
export function Done({ children }: { readonly children: ReactNode }) {
  return (
    <p className="notice done" role="status">
      {children}
    </p>
  );
}
