import { type SubmitEvent, useEffect, useRef, useState } from 'react';
import {
  type AdminPost,
  MAX_ATTACHMENTS,
  MAX_BUTTONS,
  MAX_POST_TEXT,
  type PostContent,
  UploadRefused,
} from '../api/posts.ts';
import { fieldErrorsOf, messageOf } from '../api/problem.ts';
import { Checkbox, FormProblem, TextArea } from './fields.tsx';
import { formatNumber } from './format.ts';
import { keepPreview, MediaPicker, type PendingFile, pendingOf } from './media-picker.tsx';
import { buttonFields, type ButtonRow, PostButtons, rowOf } from './post-buttons.tsx';

interface Draft {
  readonly text: string;
  readonly commentsEnabled: boolean;
  readonly buttons: readonly ButtonRow[];
}

const draftOf = (post: AdminPost | null): Draft => ({
  text: post?.text ?? '',
  commentsEnabled: post?.commentsEnabled ?? true,
  buttons: (post?.buttons ?? []).map(rowOf),
});

/** The draft as the API takes it: blank button rows dropped, a row still as saved keeps its id. */
function contentOf(draft: Draft, post: AdminPost | null): PostContent {
  const rows = draft.buttons.filter((row) => row.label !== '' || row.url !== '');
  return {
    text: draft.text,
    commentsEnabled: draft.commentsEnabled,
    buttons: rows.map((row, index) => {
      const saved = post?.buttons[index];
      const id = row.id ?? (saved?.label === row.label && saved.url === row.url ? saved.id : undefined);
      return { ...(id === undefined ? {} : { id }), label: row.label, url: row.url };
    }),
  };
}

/** Only what differs from the post (the API wants at least one field, and logs which); null: nothing. */
export function changesOf(post: AdminPost, content: PostContent): Partial<PostContent> | null {
  const changes: Partial<PostContent> = {
    ...(content.text === post.text ? {} : { text: content.text }),
    ...(content.commentsEnabled === post.commentsEnabled ? {} : { commentsEnabled: content.commentsEnabled }),
    ...(JSON.stringify(content.buttons) === JSON.stringify(post.buttons) ? {} : { buttons: content.buttons }),
  };
  return Object.keys(changes).length === 0 ? null : changes;
}

export interface ComposerSubmit {
  readonly content: PostContent;
  readonly files: readonly File[];
  /** To call as each file is taken, so that it leaves the pending ones. */
  readonly onUploaded: (file: File, attachmentId: string | null) => void;
}

interface PostComposerProps {
  /** The post as saved, or null for a new one. */
  readonly post: AdminPost | null;
  readonly submitLabel: string;
  readonly pending: boolean;
  /** The last save's refusal: a problem of the content, or an `UploadRefused`. */
  readonly error: unknown;
  readonly onSubmit: (submit: ComposerSubmit) => void;
  /** Removes an uploaded attachment (null for a new post). */
  readonly onRemoveAttachment: ((attachmentId: string) => void) | null;
  readonly removing?: boolean;
  /** Whether the form holds what is not saved yet: publishing would not include it. */
  readonly onDirtyChange?: (dirty: boolean) => void;
}

/** A post's text, comments switch, buttons and media; the media picked are uploaded after the text. */
export function PostComposer(props: PostComposerProps) {
  const { post, submitLabel, pending, error, onSubmit, onRemoveAttachment, removing = false } = props;
  const { onDirtyChange } = props;
  const [draft, setDraft] = useState(() => draftOf(post));
  const [files, setFiles] = useState<readonly PendingFile[]>([]);
  const [tooMany, setTooMany] = useState(false);
  // The pending files for the callbacks of a save in flight, and for the clean-up at the end.
  const held = useRef<readonly PendingFile[]>([]);
  useEffect(() => {
    held.current = files;
  }, [files]);
  // Previews not uploaded are freed with the form; uploaded ones were handed over to their attachment.
  useEffect(
    () => () => {
      for (const file of held.current) URL.revokeObjectURL(file.url);
    },
    [],
  );

  const content = contentOf(draft, post);
  const dirty = files.length > 0 || (post === null ? content.text !== '' : changesOf(post, content) !== null);
  useEffect(() => {
    onDirtyChange?.(dirty);
  }, [dirty, onDirtyChange]);

  const refusedUpload = error instanceof UploadRefused ? error : null;
  const errors = fieldErrorsOf(refusedUpload ? null : error, [
    'text',
    'commentsEnabled',
    ...buttonFields(draft.buttons.length),
  ]);
  const mediaErrors = [
    ...(tooMany
      ? [`A post has at most ${String(MAX_ATTACHMENTS)} attachments: the rest were left out.`]
      : []),
    ...(refusedUpload
      ? [`${refusedUpload.file.name} was not uploaded: ${messageOf(refusedUpload.problem)}`]
      : []),
  ];

  const pick = (picked: readonly File[]) => {
    const room = MAX_ATTACHMENTS - (post?.attachments.length ?? 0) - files.length;
    setTooMany(picked.length > room);
    setFiles([...files, ...picked.slice(0, Math.max(0, room)).map(pendingOf)]);
  };
  const unpick = (key: string) => {
    const file = files.find((item) => item.key === key);
    if (file) URL.revokeObjectURL(file.url);
    setTooMany(false);
    setFiles(files.filter((item) => item.key !== key));
  };
  const uploaded = (file: File, attachmentId: string | null) => {
    const done = held.current.find((item) => item.file === file);
    if (done && attachmentId !== null) keepPreview(attachmentId, done);
    else if (done) URL.revokeObjectURL(done.url);
    // At once, not at the next render: the form may close (a new post's page) before that.
    held.current = held.current.filter((item) => item.file !== file);
    setFiles((now) => now.filter((item) => item.file !== file));
  };
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    setTooMany(false);
    onSubmit({ content, files: files.map((item) => item.file), onUploaded: uploaded });
  };

  return (
    <form className="post-composer" onSubmit={submit} noValidate>
      <TextArea
        label="Text"
        rows={8}
        hint={`${formatNumber(Array.from(draft.text).length)} of ${formatNumber(MAX_POST_TEXT)} characters.`}
        value={draft.text}
        onChange={(event) => {
          setDraft({ ...draft, text: event.target.value });
        }}
        errors={errors.get('text')}
      />
      <MediaPicker
        attached={post?.attachments ?? []}
        pending={files}
        max={MAX_ATTACHMENTS}
        onPick={pick}
        onUnpick={unpick}
        onRemove={onRemoveAttachment}
        removing={removing}
        errors={mediaErrors}
      />
      <PostButtons
        rows={draft.buttons}
        max={MAX_BUTTONS}
        onChange={(buttons) => {
          setDraft({ ...draft, buttons });
        }}
        errors={errors}
      />
      <Checkbox
        label="Readers may comment"
        checked={draft.commentsEnabled}
        onChange={(commentsEnabled) => {
          setDraft({ ...draft, commentsEnabled });
        }}
        errors={errors.get('commentsEnabled')}
      />
      {refusedUpload ? (
        <p className="notice error" role="alert">
          {refusedUpload.file.name} was not uploaded. See the message under Media.
        </p>
      ) : (
        <FormProblem error={error} unplaced={errors.get('')} />
      )}
      <button type="submit" className="primary" disabled={pending}>
        {pending ? 'Saving…' : submitLabel}
      </button>
    </form>
  );
}
