import { type SubmitEvent, useState } from 'react';
import type { Channel } from '../api/channels.ts';
import { fieldErrorsOf } from '../api/problem.ts';
import { Checkbox, FormProblem, TextArea, TextInput } from '../components/fields.tsx';

/** What an admin sets on a channel: everything but its id and times. */
export type ChannelSettings = Omit<Channel, 'id' | 'createdAt' | 'updatedAt'>;

const FIELDS = [
  'title',
  'description',
  'avatarUrl',
  'allowedReactions',
  'commentsEnabled',
  'commentRate',
  'commentRate.intervalSeconds',
  'commentRate.burst',
  'autoHideReports',
] as const;

/** The API's defaults for a new channel (ChannelCreation in the contract). */
export const NEW_CHANNEL: ChannelSettings = {
  title: '',
  description: '',
  avatarUrl: null,
  allowedReactions: ['👍', '❤️', '🔥', '😂', '😮', '😢'],
  commentsEnabled: true,
  commentRate: { intervalSeconds: 10, burst: 3 },
  autoHideReports: 3,
};

/** The form's text, as typed: numbers stay text until sent, so the server judges what was typed. */
interface Draft {
  title: string;
  description: string;
  avatarUrl: string;
  reactions: string;
  commentsEnabled: boolean;
  intervalSeconds: string;
  burst: string;
  autoHideReports: string;
}

const draftOf = (settings: ChannelSettings): Draft => ({
  title: settings.title,
  description: settings.description,
  avatarUrl: settings.avatarUrl ?? '',
  reactions: settings.allowedReactions.join(' '),
  commentsEnabled: settings.commentsEnabled,
  intervalSeconds: String(settings.commentRate.intervalSeconds),
  burst: String(settings.commentRate.burst),
  autoHideReports: String(settings.autoHideReports),
});

const settingsOf = (draft: Draft): ChannelSettings => ({
  title: draft.title,
  description: draft.description,
  avatarUrl: draft.avatarUrl.trim() === '' ? null : draft.avatarUrl.trim(),
  allowedReactions: draft.reactions.split(/\s+/u).filter(Boolean),
  commentsEnabled: draft.commentsEnabled,
  commentRate: { intervalSeconds: Number(draft.intervalSeconds), burst: Number(draft.burst) },
  autoHideReports: Number(draft.autoHideReports),
});

interface ChannelFormProps {
  readonly initial: ChannelSettings;
  readonly submitLabel: string;
  readonly pending: boolean;
  /** The last refusal, whose field errors are shown next to their fields. */
  readonly error: unknown;
  readonly onSubmit: (settings: ChannelSettings) => void;
}

/** A channel's settings: title, description, avatar, reactions, comments, slow mode, report rule. */
export function ChannelForm({ initial, submitLabel, pending, error, onSubmit }: ChannelFormProps) {
  const [draft, setDraft] = useState(() => draftOf(initial));
  const errors = fieldErrorsOf(error, FIELDS);
  const set = (name: keyof Draft) => (event: { target: { value: string } }) => {
    setDraft({ ...draft, [name]: event.target.value });
  };
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    onSubmit(settingsOf(draft));
  };
  return (
    <form className="channel-form" onSubmit={submit} noValidate>
      <TextInput label="Title" value={draft.title} onChange={set('title')} errors={errors.get('title')} />
      <TextArea
        label="Description"
        rows={3}
        value={draft.description}
        onChange={set('description')}
        errors={errors.get('description')}
      />
      <TextInput
        label="Avatar URL"
        type="url"
        inputMode="url"
        hint="An https address of a square picture; leave empty for none."
        value={draft.avatarUrl}
        onChange={set('avatarUrl')}
        errors={errors.get('avatarUrl')}
      />
      <TextInput
        label="Allowed reactions"
        hint="Up to 12 emoji, separated by spaces."
        value={draft.reactions}
        onChange={set('reactions')}
        errors={errors.get('allowedReactions')}
      />
      <fieldset>
        <legend>Comments</legend>
        <Checkbox
          label="Readers may comment"
          checked={draft.commentsEnabled}
          onChange={(commentsEnabled) => {
            setDraft({ ...draft, commentsEnabled });
          }}
          errors={errors.get('commentsEnabled')}
        />
        {/* Slow mode only means something while readers may comment; its values are kept meanwhile. */}
        <fieldset className="field-row bare" disabled={!draft.commentsEnabled}>
          <TextInput
            label="Slow mode: seconds between comments"
            type="number"
            inputMode="numeric"
            min={1}
            max={3600}
            value={draft.intervalSeconds}
            onChange={set('intervalSeconds')}
            errors={errors.get('commentRate.intervalSeconds')}
          />
          <TextInput
            label="Comments allowed at once"
            type="number"
            inputMode="numeric"
            min={1}
            max={100}
            value={draft.burst}
            onChange={set('burst')}
            errors={errors.get('commentRate.burst')}
          />
        </fieldset>
        {errors.get('commentRate') ? (
          <ul className="field-errors">
            {errors.get('commentRate')?.map((message) => (
              <li key={message}>Slow mode: {message}</li>
            ))}
          </ul>
        ) : null}
        <TextInput
          label="Reports that hide a comment"
          type="number"
          inputMode="numeric"
          min={1}
          max={1000}
          hint="Distinct reports after which a comment is hidden until a moderator looks at it."
          value={draft.autoHideReports}
          onChange={set('autoHideReports')}
          errors={errors.get('autoHideReports')}
        />
      </fieldset>
      <FormProblem error={error} unplaced={errors.get('')} />
      <button type="submit" className="primary" disabled={pending}>
        {pending ? 'Saving…' : submitLabel}
      </button>
    </form>
  );
}
