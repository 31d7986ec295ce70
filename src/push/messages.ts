import type { MessengerMessage, MobileMessage } from '../integrations/push/port.ts';
import { categoryOf, type PushContent } from './content.ts';

// The words of a push (decision 027). Without PUSH_SHOW_PREVIEW a push says that something happened and
// where, never what was said: lock screens are read by others, and the text stays with the provider.

export interface WordingOptions {
  readonly showPreview: boolean;
}

export interface MessengerLinkOptions extends WordingOptions {
  /** MESSENGER_BOT_USERNAME without `@`; no button without it. */
  readonly botUsername: string | undefined;
  /** MESSENGER_LINK_BASE, `https://t.me` by default. */
  readonly linkBase: string;
}

/** FCM refuses a message over 4096 bytes; titles and bodies are cut well inside it, in characters and bytes. */
const MAX_TITLE = { chars: 100, bytes: 400 };
const MAX_BODY = { chars: 1_000, bytes: 2_000 };
const MAX_PREVIEW = { chars: 200, bytes: 800 };

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Cut at a whole character as a reader sees it (an emoji with its modifiers stays whole). */
const cut = (text: string, max: { readonly chars: number; readonly bytes: number }): string => {
  const chars = Array.from(graphemes.segment(text.replace(/\s+/g, ' ').trim()), (s) => s.segment);
  const fits = (n: number) => Buffer.byteLength(chars.slice(0, n).join('')) <= max.bytes;
  if (chars.length <= max.chars && fits(chars.length)) return chars.join('');
  let n = Math.min(chars.length, max.chars - 1);
  while (n > 0 && !fits(n)) n = Math.floor(n * 0.9);
  return `${chars.slice(0, n).join('')}…`;
};

const preview = (content: PushContent, options: WordingOptions): string | undefined =>
  options.showPreview && 'preview' in content && content.preview
    ? cut(content.preview, MAX_PREVIEW)
    : undefined;

/** The title and body shown by the phone or the bot. */
export function wordsOf(
  content: PushContent,
  options: WordingOptions,
): { readonly title: string; readonly body: string } {
  const shown = preview(content, options);
  switch (content.kind) {
    case 'chat':
      return { title: 'New reply from support', body: shown ?? 'Open the chat to read it.' };
    case 'ticket':
      return content.csat
        ? { title: 'Your request was resolved', body: 'Tell us how we did.' }
        : { title: 'Your request was updated', body: shown ?? 'Open it to see what changed.' };
    case 'post':
      return { title: 'New post in the channel', body: shown ?? 'Open the channel to read it.' };
    case 'notice':
      return { title: cut(content.title, MAX_TITLE), body: cut(content.body, MAX_BODY) };
  }
}

/** The spec's mobile payload: every `data` value a string, `conversationId` or `ticketId` to open. */
export function mobileMessage(content: PushContent, token: string, options: WordingOptions): MobileMessage {
  const data: Record<string, string> = { type: categoryOf(content) };
  switch (content.kind) {
    case 'chat':
      data['conversationId'] = content.conversationId;
      break;
    case 'ticket':
      data['ticketId'] = content.ticketId;
      if (content.csat) data['csat'] = 'true';
      break;
    case 'post':
      data['postId'] = content.postId;
      data['channelId'] = content.channelId;
      break;
    case 'notice':
      data['noticeId'] = content.noticeId;
      break;
  }
  return { token, notification: wordsOf(content, options), data };
}

/** Telegram's start parameter allows letters, digits, `_` and `-`, up to 512 characters. */
const startParameter = /^[A-Za-z0-9_-]{1,512}$/;

/** `<link base>/<bot>/app?startapp=<chat|ticket>_<id>`; the app itself for posts and notices. */
export function miniAppLink(content: PushContent, options: MessengerLinkOptions): string | undefined {
  if (options.botUsername === undefined) return undefined;
  const app = `${options.linkBase.replace(/\/+$/, '')}/${encodeURIComponent(options.botUsername)}/app`;
  const start =
    content.kind === 'chat'
      ? `chat_${content.conversationId}`
      : content.kind === 'ticket'
        ? `ticket_${content.ticketId}`
        : undefined;
  if (start === undefined) return app;
  // An id the start parameter cannot carry still opens the app, on its default screen.
  return startParameter.test(start) ? `${app}?startapp=${start}` : app;
}

const buttonText: Record<PushContent['kind'], string> = {
  chat: 'Open chat',
  ticket: 'Open request',
  post: 'Open channel',
  notice: 'Open app',
};

/** A bot message: the title on its own line, then the body, and one button when the bot has a name. */
export function messengerMessage(
  content: PushContent,
  chatId: string,
  options: MessengerLinkOptions,
): MessengerMessage {
  const { title, body } = wordsOf(content, options);
  const url = miniAppLink(content, options);
  return {
    chatId,
    text: `${title}\n${body}`,
    ...(url === undefined ? {} : { button: { text: buttonText[content.kind], url } }),
  };
}
