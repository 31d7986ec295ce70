import { Checkbox, TextInput } from './fields.tsx';

/** A reason's fields as a form holds them: the order as typed, so an empty one can mean "last". */
export interface ReasonDraft {
  readonly title: string;
  readonly order: string;
  readonly active: boolean;
}

/** The title, order and offered switch of a reason, shared by the new-reason form and the edit page. */
export function ReasonFields({
  draft,
  onChange,
  errors,
  orderHint,
  activeLabel,
}: {
  readonly draft: ReasonDraft;
  readonly onChange: (draft: ReasonDraft) => void;
  readonly errors: ReadonlyMap<string, string[]>;
  readonly orderHint: string;
  readonly activeLabel: string;
}) {
  return (
    <>
      <TextInput
        label="Title"
        value={draft.title}
        onChange={(event) => {
          onChange({ ...draft, title: event.target.value });
        }}
        errors={errors.get('title')}
      />
      <TextInput
        label="Order"
        type="number"
        inputMode="numeric"
        min={0}
        hint={orderHint}
        value={draft.order}
        onChange={(event) => {
          onChange({ ...draft, order: event.target.value });
        }}
        errors={errors.get('order')}
      />
      <Checkbox
        label={activeLabel}
        checked={draft.active}
        onChange={(active) => {
          onChange({ ...draft, active });
        }}
        errors={errors.get('active')}
      />
    </>
  );
}
