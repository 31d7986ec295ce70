import { type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes, useId } from 'react';
import { ApiProblem, messageOf } from '../api/problem.ts';

/** What a control needs to be tied to its label, hint and errors. */
interface ControlIds {
  readonly id: string;
  readonly 'aria-describedby': string | undefined;
  readonly 'aria-invalid': true | undefined;
}

interface FieldProps {
  readonly label: string;
  readonly hint?: string;
  /** The server's messages for this field, shown under it and read out with it. */
  readonly errors?: readonly string[] | undefined;
  readonly children: (ids: ControlIds) => ReactNode;
}

/** A label, the control, an optional hint and the field's errors from the last answer. */
export function Field({ label, hint, errors = [], children }: FieldProps) {
  const id = useId();
  const hintId = hint === undefined ? undefined : `${id}-hint`;
  const errorId = errors.length === 0 ? undefined : `${id}-errors`;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-describedby': describedBy, 'aria-invalid': errorId ? true : undefined })}
      {hint === undefined ? null : (
        <p id={hintId} className="hint">
          {hint}
        </p>
      )}
      {errorId === undefined ? null : (
        <ul id={errorId} className="field-errors">
          {errors.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'children'> & Omit<FieldProps, 'children'>;

export function TextInput({ label, hint, errors, ...input }: InputProps) {
  return (
    <Field label={label} hint={hint} errors={errors}>
      {(ids) => <input {...input} {...ids} />}
    </Field>
  );
}

type AreaProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'children'> & Omit<FieldProps, 'children'>;

export function TextArea({ label, hint, errors, ...area }: AreaProps) {
  return (
    <Field label={label} hint={hint} errors={errors}>
      {(ids) => <textarea {...area} {...ids} />}
    </Field>
  );
}

interface CheckboxProps {
  readonly label: string;
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
  readonly errors?: readonly string[] | undefined;
}

export function Checkbox({ label, checked, onChange, errors = [] }: CheckboxProps) {
  const id = useId();
  return (
    <div className="field checkbox">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(event) => {
          onChange(event.target.checked);
        }}
        aria-describedby={errors.length === 0 ? undefined : `${id}-errors`}
      />
      <label htmlFor={id}>{label}</label>
      {errors.length === 0 ? null : (
        <ul id={`${id}-errors`} className="field-errors">
          {errors.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * A refused form's problem: its `detail`, and the field errors that belong to no field of the form (those
 * of a field are shown next to it).
 */
export function FormProblem({
  error,
  unplaced = [],
}: {
  readonly error: unknown;
  readonly unplaced?: readonly string[] | undefined;
}) {
  if (error === null || error === undefined) return null;
  const validation = error instanceof ApiProblem && error.code === 'validation_failed';
  return (
    <div className="notice error" role="alert">
      <p>
        {messageOf(error)}
        {validation ? ' See the messages next to the fields.' : null}
      </p>
      {unplaced.length === 0 ? null : (
        <ul>
          {unplaced.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
