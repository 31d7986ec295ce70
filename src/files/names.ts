// Characters a file name must not carry into a header, a file system or a user's eyes: C0/C1 controls,
// path separators, and bidirectional overrides that make `evil‮txt.exe` read as `evilexe.txt`.
// eslint-disable-next-line no-control-regex
const unsafe = /[\u0000-\u001f\u007f-\u009f/\\\u200e\u200f\u202a-\u202e\u2066-\u2069:*?"<>|]/g;
const MAX_NAME_LENGTH = 100;

/**
 * The name a file is offered under: only the last path segment of what the client sent, NFC, without
 * unsafe characters or leading dots, at most 100 characters, always ending in the extension of the type
 * its bytes were found to be (so `invoice.pdf.exe` that is really a PDF is offered as `invoice.pdf.exe.pdf`).
 */
export function sanitiseFileName(original: string | undefined, ext: string): string {
  const lastSegment = (original ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = lastSegment
    .normalize('NFC')
    .replace(unsafe, '_')
    .replace(/^[.\s_]+/, '')
    .replace(/[.\s]+$/, '')
    .trim();
  const suffix = `.${ext}`;
  const base = cleaned.toLowerCase().endsWith(suffix) ? cleaned.slice(0, -suffix.length) : cleaned;
  const room = MAX_NAME_LENGTH - suffix.length;
  const kept = Array.from(base)
    .slice(0, room)
    .join('')
    .replace(/[.\s]+$/, '');
  return `${kept === '' ? 'file' : kept}${suffix}`;
}
