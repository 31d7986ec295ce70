import { useId } from 'react';
import { formatNumber } from './format.ts';

/** A file picked but not uploaded yet, with its preview (a blob: URL, which the CSP's img-src allows). */
export interface PendingFile {
  readonly key: string;
  readonly file: File;
  readonly url: string;
}

/** An attachment as the admin API describes it: no address, the admin API serves no bytes. */
export interface AttachedMedia {
  readonly id: string;
  readonly kind: 'image' | 'video' | 'file';
  readonly contentType: string;
  readonly size: number;
  readonly width: number | null;
  readonly height: number | null;
}

export const ACCEPTED = 'image/*,video/mp4,application/pdf,text/plain';

let counter = 0;

export function pendingOf(file: File): PendingFile {
  counter += 1;
  return { key: `file-${String(counter)}`, file, url: URL.createObjectURL(file) };
}

// Pictures this tab uploaded, by attachment: their previews outlive the form (the admin API cannot show
// them again). They are freed when their attachment is removed, or with the tab.
const uploaded = new Map<string, string>();

/** Keeps a pending file's preview as its attachment's, once the server has taken it. */
export function keepPreview(attachmentId: string, pending: PendingFile): void {
  uploaded.set(attachmentId, pending.url);
}

export function forgetPreview(attachmentId: string): void {
  const url = uploaded.get(attachmentId);
  if (url !== undefined) URL.revokeObjectURL(url);
  uploaded.delete(attachmentId);
}

const kilobytes = new Intl.NumberFormat(undefined, {
  style: 'unit',
  unit: 'kilobyte',
  maximumFractionDigits: 1,
});
const megabytes = new Intl.NumberFormat(undefined, {
  style: 'unit',
  unit: 'megabyte',
  maximumFractionDigits: 1,
});

function formatBytes(size: number): string {
  return size < 1_000_000 ? kilobytes.format(size / 1000) : megabytes.format(size / 1_000_000);
}

const kindNames = { image: 'Picture', video: 'Video', file: 'File' } as const;

function describe(media: AttachedMedia): string {
  const box =
    media.width !== null && media.height !== null
      ? `, ${formatNumber(media.width)} × ${formatNumber(media.height)}`
      : '';
  return `${kindNames[media.kind]} (${media.contentType}${box}), ${formatBytes(media.size)}`;
}

interface MediaPickerProps {
  readonly attached: readonly AttachedMedia[];
  readonly pending: readonly PendingFile[];
  readonly max: number;
  readonly onPick: (files: readonly File[]) => void;
  readonly onUnpick: (key: string) => void;
  /** Null while the post has no media the server could remove (a new post). */
  readonly onRemove: ((attachmentId: string) => void) | null;
  readonly removing: boolean;
  readonly errors: readonly string[];
}

/** A post's media: what it has, what was picked to upload with the next save, previews of pictures. */
export function MediaPicker(props: MediaPickerProps) {
  const { attached, pending, max, onPick, onUnpick, onRemove, removing, errors } = props;
  const id = useId();
  const full = attached.length + pending.length >= max;
  return (
    <fieldset className="media-picker">
      <legend>Media</legend>
      {attached.length + pending.length === 0 ? <p className="state">No media.</p> : null}
      <ul className="media-grid">
        {attached.map((media, index) => {
          const preview = uploaded.get(media.id);
          return (
            <li key={media.id} className="media-tile">
              {preview !== undefined && media.kind === 'image' ? (
                <img src={preview} alt={`Attachment ${String(index + 1)}`} />
              ) : (
                <p className="media-kind">{kindNames[media.kind]}</p>
              )}
              <p className="media-about">{describe(media)}</p>
              {onRemove === null ? null : (
                <button
                  type="button"
                  disabled={removing}
                  onClick={() => {
                    onRemove(media.id);
                  }}
                >
                  Remove attachment {index + 1}
                </button>
              )}
            </li>
          );
        })}
        {pending.map(({ key, file, url }) => (
          <li key={key} className="media-tile pending">
            {file.type.startsWith('image/') ? (
              <img src={url} alt={`Preview of ${file.name}`} />
            ) : (
              <p className="media-kind">{file.type === 'video/mp4' ? 'Video' : 'File'}</p>
            )}
            <p className="media-about">
              {file.name}, {formatBytes(file.size)}: <em>uploaded on save</em>
            </p>
            <button
              type="button"
              onClick={() => {
                onUnpick(key);
              }}
            >
              Do not upload {file.name}
            </button>
          </li>
        ))}
      </ul>
      <div className="field">
        <label htmlFor={id}>Add media</label>
        <input
          id={id}
          type="file"
          multiple
          accept={ACCEPTED}
          disabled={full}
          aria-describedby={`${id}-hint${errors.length > 0 ? ` ${id}-errors` : ''}`}
          aria-invalid={errors.length > 0 ? true : undefined}
          onChange={(event) => {
            onPick(Array.from(event.target.files ?? []));
            // The same file may be picked again after being put back.
            event.target.value = '';
          }}
        />
        <p id={`${id}-hint`} className="hint">
          {full
            ? `A post has at most ${String(max)} attachments.`
            : `Pictures, MP4 videos, PDF or text files, up to ${String(max)} in all. They are uploaded when the post is saved.`}
        </p>
        <ul id={`${id}-errors`} className="field-errors" aria-live="polite">
          {errors.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      </div>
    </fieldset>
  );
}
