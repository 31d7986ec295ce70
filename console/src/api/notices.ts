import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas } from './client.ts';
import { usePolledQuery } from './poll.ts';
import { unwrap } from './problem.ts';

export type Notice = Schemas['Notice'];
export type NoticeSending = Schemas['NoticeSending'];
export type PushProgress = Schemas['PushProgress'];

/** The limits of NoticeSending, which the form and the preview show. */
export const NOTICE_TITLE_MAX = 100;
export const NOTICE_BODY_MAX = 1000;

const noticesKey = ['notices'] as const;

/** The newest notices with their delivery progress; it polls, so the progress moves on its own. */
export function useNotices() {
  return usePolledQuery(noticesKey, (headers) =>
    api.GET('/admin/notices', { params: { query: { limit: 50 } }, headers }),
  );
}

/** Sends a notice. One idempotency key per form: a second click sends nothing more. */
export function useSendNotice() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ body, key }: { body: NoticeSending; key: string }) =>
      unwrap(await api.POST('/admin/notices', { body, params: { header: { 'idempotency-key': key } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: noticesKey }),
  });
}

// How the service words a notice on a phone and in Telegram (src/push/messages.ts, `wordsOf`): spaces and
// line breaks fold into one space, and a title or body past its limit is cut at a whole character.
const MAX_TITLE = { chars: NOTICE_TITLE_MAX, bytes: 400 };
const MAX_BODY = { chars: NOTICE_BODY_MAX, bytes: 2_000 };
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const encoder = new TextEncoder();

function cut(text: string, max: { readonly chars: number; readonly bytes: number }): string {
  const chars = Array.from(graphemes.segment(text.replace(/\s+/g, ' ').trim()), (s) => s.segment);
  const fits = (n: number) => encoder.encode(chars.slice(0, n).join('')).length <= max.bytes;
  if (chars.length <= max.chars && fits(chars.length)) return chars.join('');
  let n = Math.min(chars.length, max.chars - 1);
  while (n > 0 && !fits(n)) n = Math.floor(n * 0.9);
  return `${chars.slice(0, n).join('')}…`;
}

/** The title and body a user's phone or the Telegram bot will show for a notice. */
export function noticeWords(title: string, body: string): { readonly title: string; readonly body: string } {
  return { title: cut(title, MAX_TITLE), body: cut(body, MAX_BODY) };
}
