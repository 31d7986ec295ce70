import { type SubmitEvent, useState } from 'react';
import { fieldErrorsOf } from '../api/problem.ts';
import { FormProblem, TextInput } from './fields.tsx';

interface ReasonFormProps {
  /** What the reason is for, as its field's label: "Why hide this comment?". */
  readonly label: string;
  readonly submitLabel: string;
  readonly pending: boolean;
  /** The last refusal: the reason's errors go next to it, the rest above the buttons. */
  readonly error: unknown;
  readonly onSubmit: (reason: string) => void;
  readonly onCancel: () => void;
}

/**
 * An action that the moderation log keeps a reason for (hide, delete). The server judges the reason: an
 * empty one comes back as its field's error.
 */
export function ReasonForm({ label, submitLabel, pending, error, onSubmit, onCancel }: ReasonFormProps) {
  const [reason, setReason] = useState('');
  const errors = fieldErrorsOf(error, ['reason']);
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    onSubmit(reason);
  };
  return (
    <form className="reason-form" onSubmit={submit} noValidate>
      <TextInput
        label={label}
        value={reason}
        maxLength={500}
        // The form opens on a click of its action: the reason is what comes next.
        autoFocus
        onChange={(event) => {
          setReason(event.target.value);
        }}
        errors={errors.get('reason')}
      />
      <FormProblem error={error} unplaced={errors.get('')} />
      <div className="actions">
        <button type="submit" className="primary" disabled={pending}>
          {pending ? 'Working…' : submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
