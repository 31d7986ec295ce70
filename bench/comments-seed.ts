import { z } from 'zod';
import { checkComment } from '../src/content-safety/index.ts';
import { call, ownerSession, pollTargets } from './channel-seed.ts';
import type { Target } from './load.ts';
import type { Service } from './targets.ts';

const READER_ID = 'bench-comment-reader';
/** Comments on the polled post: one poll page (the default limit). */
export const POLLED_COMMENTS = 20;

/** What the seeding made: a channel with the API's default slow mode and two published posts. */
export interface SeededComments {
  /** `POST` here comments on the first post, which starts with no comments. */
  readonly commentsUrl: string;
  readonly postId: string;
  /** The second post's comments (`POLLED_COMMENTS`, by as many users), polled by the reader: 200. */
  readonly poll200: Target;
  /** The same request with the ETag of a 200: answered 304. */
  readonly poll304: Target;
}

const created = z.object({ id: z.uuid() });
const commentPage = z.object({
  items: z.array(z.object({ id: z.uuid(), status: z.literal('visible'), mine: z.literal(false) })),
  nextCursor: z.string(),
});

// Benign prose in both languages: no links, no numbers, nothing a secret rule could take for a secret.
const SENTENCES = [
  'Thank you for the update, the new version feels much faster on my phone.',
  'Could you explain how the new settings page works for families with several accounts?',
  'I read the whole post twice and I still love the idea behind this change.',
  'The support team answered me within an hour, which was a pleasant surprise.',
  'Please keep posting these short notes, they help me plan my week.',
  'Is there any chance the dark theme will come to the tablet version soon?',
  'My neighbour asked about the same thing yesterday, so this post came just in time.',
  'Great work, everyone, the app has never looked this calm and tidy.',
  'We tried the new layout at the office and most people liked it right away.',
  'I would like a way to mute a thread without leaving the whole channel.',
  'Спасибо за подробный рассказ, очень жду следующего обновления.',
  'Подскажите, пожалуйста, когда появится новая функция для общих списков?',
];

/**
 * `count` comments of exactly `length` characters, made the same way on every run: the `i`th strings
 * together the sentences its base-12 digits name, so the first 1,728 all differ. Each is
 * checked to pass `checkComment`, so a refusal in the load is the service's doing.
 */
export function benignTexts(count: number, length: number): string[] {
  const texts = Array.from({ length: count }, (_, i) => {
    let text = '';
    for (let k = 0, rest = i; text.length < length; k++, rest = Math.floor(rest / SENTENCES.length)) {
      text += `${SENTENCES[(rest + k) % SENTENCES.length] ?? ''} `;
    }
    return `${text.slice(0, length - 1)}.`;
  });
  const flagged = texts.find((text) => checkComment(text, { hashKey: 'bench' }) !== null);
  if (flagged !== undefined) throw new Error(`a bench comment would be refused: ${flagged}`);
  return texts;
}

/**
 * Through the real admin API: the bench owner signs in and creates a channel (the default slow mode)
 * and two published posts; then `POLLED_COMMENTS` users comment once each on the second, and the reader's
 * poll of it must answer 200 with those comments and an ETag, and 304 with that ETag.
 */
export async function seedComments(
  service: Service,
  textLength: number,
  signal: AbortSignal,
): Promise<SeededComments> {
  const { base } = service;
  const { post } = await ownerSession(service, signal);
  const channel = created.parse(await post('/admin/channels', { title: 'Bench comments' }, 201));
  const postIds: string[] = [];
  for (const title of ['Commented on under load', 'Polled']) {
    const text = `${title}: ${'a line of text that a channel post could well hold. '.repeat(4)}`;
    const { id } = created.parse(await post(`/admin/channels/${channel.id}/posts`, { text }, 201));
    await post(`/admin/posts/${id}/publish`, {}, 200);
    postIds.push(id);
  }
  const [postId = '', polledId = ''] = postIds;
  const commentsUrl = (id: string) => `${base}/api/channel/${channel.id}/posts/${id}/comments`;

  const texts = benignTexts(POLLED_COMMENTS, textLength);
  await Promise.all(
    texts.map(async (text, i) => {
      const headers = {
        authorization: `Bearer ${service.sessionToken(`bench-poll-author-${i}`)}`,
        'content-type': 'application/json',
      };
      const body = JSON.stringify({ text });
      await call(commentsUrl(polledId), { method: 'POST', headers, body, signal }, 201);
    }),
  );
  const reader = { authorization: `Bearer ${service.sessionToken(READER_ID)}` };
  const poll = await pollTargets('comment poll', commentsUrl(polledId), reader, commentPage, signal);
  return {
    commentsUrl: commentsUrl(postId),
    postId,
    poll200: poll.ok,
    poll304: poll.notModified,
  };
}
