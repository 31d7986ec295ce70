/** What an upload may be. Each kind has its own size cap (images, video, and the rest). */
export type FileKind = 'image' | 'video' | 'document' | 'text';

export const FILE_KINDS: readonly FileKind[] = ['image', 'video', 'document', 'text'];

export const TEXT_MIME = 'text/plain; charset=utf-8';

/**
 * The allow-list (API.md), keyed by the content type a stored file is served with. A type is known from
 * its bytes only; text is what remains when no binary type is detected and the text checks pass.
 */
export const ALLOWED_TYPES = {
  'image/jpeg': { ext: 'jpg', kind: 'image' },
  'image/png': { ext: 'png', kind: 'image' },
  'image/gif': { ext: 'gif', kind: 'image' },
  'image/webp': { ext: 'webp', kind: 'image' },
  'image/bmp': { ext: 'bmp', kind: 'image' },
  'video/mp4': { ext: 'mp4', kind: 'video' },
  'application/pdf': { ext: 'pdf', kind: 'document' },
  [TEXT_MIME]: { ext: 'txt', kind: 'text' },
} as const satisfies Record<string, { readonly ext: string; readonly kind: FileKind }>;

export type AllowedMime = keyof typeof ALLOWED_TYPES;

export interface DetectedType {
  readonly mime: AllowedMime;
  readonly ext: string;
  readonly kind: FileKind;
}

const isAllowedMime = (mime: string): mime is AllowedMime => Object.hasOwn(ALLOWED_TYPES, mime);

/** The allowed type for a detected content type, or undefined when that type is not accepted. */
export function allowedType(mime: string): DetectedType | undefined {
  if (!isAllowedMime(mime)) return undefined;
  return { mime, ...ALLOWED_TYPES[mime] };
}

/**
 * `image_too_large`: an image that declares more pixels (width × height) than MAX_IMAGE_PIXELS, however
 * few bytes it has; a 413 like `upload_too_large`, told apart because shrinking the file would not help.
 */
export type UploadRejectionCode = 'upload_too_large' | 'image_too_large' | 'upload_type_not_allowed';

/**
 * Why an upload was refused. `detail` is for people and never quotes the file's bytes: it names a
 * limit, a type or the rule that failed, so logging or returning it cannot leak what was uploaded.
 */
export class UploadRejected extends Error {
  readonly code: UploadRejectionCode;
  readonly status: 413 | 415;
  readonly detail: string;
  constructor(code: UploadRejectionCode, detail: string) {
    super(detail);
    this.name = 'UploadRejected';
    this.code = code;
    this.status = code === 'upload_type_not_allowed' ? 415 : 413;
    this.detail = detail;
  }
}

export const tooLarge = (detail: string): UploadRejected => new UploadRejected('upload_too_large', detail);
export const notAllowed = (detail: string): UploadRejected =>
  new UploadRejected('upload_type_not_allowed', detail);
export const imageTooLarge = (detail: string): UploadRejected =>
  new UploadRejected('image_too_large', detail);
