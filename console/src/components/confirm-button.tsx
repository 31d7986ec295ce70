import '../styles/administration.css';
import { useEffect, useRef, useState } from 'react';

interface ConfirmButtonProps {
  /** The button's text: what it does ("Deactivate"). */
  readonly label: string;
  /** What the admin is asked before it happens, with what follows from it. */
  readonly question: string;
  readonly pending: boolean;
  readonly onConfirm: () => void;
  readonly danger?: boolean;
}

/**
 * A button for what cannot simply be undone: it asks first, in the page (no browser dialog), and moves the
 * keyboard to the answer; "Cancel" brings it back.
 */
export function ConfirmButton({ label, question, pending, onConfirm, danger = false }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  const start = useRef<HTMLButtonElement>(null);
  const returning = useRef(false);
  useEffect(() => {
    if (asking) confirm.current?.focus();
    else if (returning.current) start.current?.focus();
  }, [asking]);
  const className = danger ? 'danger' : undefined;
  if (!asking) {
    return (
      <button
        ref={start}
        type="button"
        className={className}
        onClick={() => {
          setAsking(true);
        }}
      >
        {label}
      </button>
    );
  }
  return (
    <div className="confirm" role="group" aria-label={question}>
      <p>{question}</p>
      <button ref={confirm} type="button" className={className} disabled={pending} onClick={onConfirm}>
        {pending ? 'Working…' : `Yes, ${label.toLowerCase()}`}
      </button>
      <button
        type="button"
        onClick={() => {
          returning.current = true;
          setAsking(false);
        }}
      >
        Cancel
      </button>
    </div>
  );
}
