import { useId, useState } from 'react';
import { TextInput } from './fields.tsx';

/** One button as typed; `key` tells the rows apart, `id` is the server's for a button it has. */
export interface ButtonRow {
  readonly key: string;
  readonly id?: string | undefined;
  readonly label: string;
  readonly url: string;
}

interface PostButtonsProps {
  readonly rows: readonly ButtonRow[];
  readonly max: number;
  readonly onChange: (rows: readonly ButtonRow[]) => void;
  /** The server's messages by field: `buttons`, `buttons.0`, `buttons.0.label`, `buttons.0.url`, … */
  readonly errors: ReadonlyMap<string, string[]>;
}

let counter = 0;
const newKey = () => {
  counter += 1;
  return `button-${String(counter)}`;
};

export const rowOf = (button: { id?: string; label: string; url: string }): ButtonRow => ({
  key: newKey(),
  id: button.id,
  label: button.label,
  url: button.url,
});

/** The form field names a post's buttons can have errors under, for `fieldErrorsOf`. */
export const buttonFields = (count: number): string[] => [
  'buttons',
  ...Array.from({ length: count }, (_, index) => [
    `buttons.${String(index)}`,
    `buttons.${String(index)}.label`,
    `buttons.${String(index)}.url`,
  ]).flat(),
];

/** Up to `max` link buttons under the post, each a label and an https address; a button more is refused. */
export function PostButtons({ rows, max, onChange, errors }: PostButtonsProps) {
  const id = useId();
  const [refused, setRefused] = useState(false);
  const [added, setAdded] = useState<string | null>(null);
  const messages = [
    ...(refused && rows.length >= max ? [`A post has at most ${String(max)} buttons.`] : []),
    ...(errors.get('buttons') ?? []),
  ];
  const change = (index: number, name: 'label' | 'url', value: string) => {
    onChange(rows.map((row, at) => (at === index ? { ...row, [name]: value } : row)));
  };
  const add = () => {
    if (rows.length >= max) {
      setRefused(true);
      return;
    }
    const row = rowOf({ label: '', url: '' });
    setAdded(row.key);
    setRefused(false);
    onChange([...rows, row]);
  };
  return (
    <fieldset className="post-buttons" aria-describedby={`${id}-hint`}>
      <legend>Buttons</legend>
      <p id={`${id}-hint`} className="hint">
        Up to {max} links under the post, each with a label of up to 40 characters and an https address.
      </p>
      {rows.length === 0 ? <p className="state">No button.</p> : null}
      <ol className="button-rows">
        {rows.map((row, index) => {
          const n = index + 1;
          const own = errors.get(`buttons.${String(index)}`) ?? [];
          return (
            <li key={row.key} className="button-row">
              <TextInput
                label={`Button ${String(n)} label`}
                value={row.label}
                maxLength={40}
                autoFocus={row.key === added}
                onChange={(event) => {
                  change(index, 'label', event.target.value);
                }}
                errors={[...own, ...(errors.get(`buttons.${String(index)}.label`) ?? [])]}
              />
              <TextInput
                label={`Button ${String(n)} URL`}
                type="url"
                inputMode="url"
                placeholder="https://"
                value={row.url}
                onChange={(event) => {
                  change(index, 'url', event.target.value);
                }}
                errors={errors.get(`buttons.${String(index)}.url`)}
              />
              <button
                type="button"
                className="remove"
                onClick={() => {
                  setRefused(false);
                  onChange(rows.filter((other) => other.key !== row.key));
                }}
              >
                Remove button {n}
              </button>
            </li>
          );
        })}
      </ol>
      <button type="button" onClick={add} aria-describedby={messages.length > 0 ? `${id}-errors` : undefined}>
        Add a button
      </button>
      <ul id={`${id}-errors`} className="field-errors" aria-live="polite">
        {messages.map((message) => (
          <li key={message}>{message}</li>
        ))}
      </ul>
    </fieldset>
  );
}
