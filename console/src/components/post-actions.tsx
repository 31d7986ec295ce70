import { useEffect, useId, useRef, useState } from 'react';
import type { AdminPost, PostMove } from '../api/posts.ts';
import { fieldErrorsOf, messageOf } from '../api/problem.ts';
import { Checkbox, Field } from './fields.tsx';
import { formatDateTime } from './format.ts';
import { fromLocalInput, timeZoneName, toLocalInput } from './time-zone.ts';

interface PostActionsProps {
  readonly post: AdminPost;
  readonly pending: boolean;
  /** The move last asked for, and its refusal: a schedule's is shown at its field. */
  readonly last: PostMove | undefined;
  readonly error: unknown;
  /** Why nothing may move now (unsaved edits), or null. */
  readonly blocked: string | null;
  readonly onMove: (move: PostMove) => void;
}

const inAnHour = () => {
  const date = new Date(Date.now() + 3_600_000);
  date.setMinutes(0, 0, 0);
  return toLocalInput(date);
};

/** What can happen to the post next, by its status: schedule, publish, hide, unhide, delete. */
export function PostActions({ post, pending, last, error, blocked, onMove }: PostActionsProps) {
  const [notify, setNotify] = useState(post.notify);
  const [when, setWhen] = useState(inAnHour);
  const [unreadable, setUnreadable] = useState(false);
  const hintId = useId();
  const scheduleError = last?.type === 'schedule' ? error : null;
  const otherError = last?.type === 'schedule' ? null : error;
  const scheduleMessages = [
    ...(unreadable ? ['Choose a date and a time.'] : []),
    ...scheduleErrorsOf(scheduleError),
  ];
  const disabled = pending || blocked !== null;
  const schedule = () => {
    const publishAt = fromLocalInput(when);
    setUnreadable(publishAt === null);
    if (publishAt !== null) onMove({ type: 'schedule', publishAt, notify });
  };
  const { status } = post;
  return (
    <section className="post-actions" aria-labelledby={`${hintId}-title`}>
      <h2 id={`${hintId}-title`}>Publishing</h2>
      {blocked === null ? null : (
        <p id={hintId} className="hint">
          {blocked}
        </p>
      )}
      {status === 'draft' || status === 'scheduled' ? (
        <>
          {status === 'scheduled' && post.publishAt !== null ? (
            <p>
              Scheduled for {formatDateTime(post.publishAt)}
              {post.notify ? ', with a push notification.' : ', without a push notification.'}
            </p>
          ) : (
            <Checkbox label="Send a push notification to subscribers" checked={notify} onChange={setNotify} />
          )}
          {status === 'draft' ? (
            <div className="schedule-row">
              <Field
                label="Publish at"
                hint={`In your time zone, ${timeZoneName()}.`}
                errors={scheduleMessages.length === 0 ? undefined : scheduleMessages}
              >
                {(ids) => (
                  <input
                    {...ids}
                    type="datetime-local"
                    step={1}
                    value={when}
                    onChange={(event) => {
                      setWhen(event.target.value);
                    }}
                  />
                )}
              </Field>
              <button type="button" disabled={disabled} onClick={schedule}>
                Schedule
              </button>
            </div>
          ) : null}
          <div className="action-row">
            <button
              type="button"
              className="primary"
              disabled={disabled}
              onClick={() => {
                onMove({ type: 'publish', notify: status === 'scheduled' ? post.notify : notify });
              }}
            >
              Publish now
            </button>
            {status === 'scheduled' ? (
              <button
                type="button"
                disabled={disabled}
                onClick={() => {
                  onMove({ type: 'unschedule' });
                }}
              >
                Unschedule
              </button>
            ) : null}
          </div>
        </>
      ) : null}
      {status === 'published' || status === 'hidden' ? (
        <div className="action-row">
          <button
            type="button"
            disabled={pending}
            onClick={() => {
              onMove({ type: status === 'published' ? 'hide' : 'unhide' });
            }}
          >
            {status === 'published' ? 'Hide from readers' : 'Show to readers again'}
          </button>
        </div>
      ) : null}
      {otherError === null || otherError === undefined ? null : (
        <p className="notice error" role="alert">
          {messageOf(otherError)}
        </p>
      )}
      {status === 'deleted' ? null : (
        <DeletePost
          pending={pending}
          onDelete={() => {
            onMove({ type: 'delete' });
          }}
        />
      )}
    </section>
  );
}

/** A schedule's refusal: the field's own errors, or else the problem's detail, next to the field. */
function scheduleErrorsOf(error: unknown): string[] {
  if (error === null || error === undefined) return [];
  const byField = fieldErrorsOf(error, ['publishAt']);
  const own = byField.get('publishAt') ?? [];
  if (own.length > 0) return own;
  return [messageOf(error)];
}

/** Delete, asked twice: a modal dialog (focus held inside it, Escape cancels) says it cannot be undone. */
function DeletePost({ pending, onDelete }: { readonly pending: boolean; readonly onDelete: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) {
      element.showModal();
      // The safe answer first: a stray Enter keeps the post.
      keep.current?.focus();
    }
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <div className="danger-zone">
      <button
        type="button"
        className="danger"
        disabled={pending}
        onClick={() => {
          setOpen(true);
        }}
      >
        Delete post…
      </button>
      <dialog
        ref={dialog}
        aria-labelledby={titleId}
        onClose={() => {
          setOpen(false);
        }}
      >
        <h2 id={titleId}>Delete this post?</h2>
        <p>Readers will no longer see it, and a deleted post cannot be restored.</p>
        <div className="action-row">
          <button
            type="button"
            className="danger"
            onClick={() => {
              setOpen(false);
              onDelete();
            }}
          >
            Delete for good
          </button>
          <button
            ref={keep}
            type="button"
            onClick={() => {
              setOpen(false);
            }}
          >
            Keep the post
          </button>
        </div>
      </dialog>
    </div>
  );
}
