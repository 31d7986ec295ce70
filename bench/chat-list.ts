import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { call } from './channel-seed.ts';
import type { CallLog } from './chat-calls.ts';
import { pollOnce, type SeededChat, sandboxOf, webhooksSettled } from './chat-seed.ts';
import type { Target } from './load.ts';
import type { Service } from './targets.ts';

/** The polled user's requests besides the polled conversation: one answered, one closed and rated, one closed. */
const EXTRA_TEXTS = [
  'Another thing: can I change the delivery address of order #48377 before it ships?',
  'And the invoice for #48213 shows the wrong company name; could you send a corrected one?',
  'Last one, I promise: how do I turn off the marketing e-mails?',
] as const;
const ADDRESS_REPLY =
  '<p>Yes, until it leaves the warehouse. I have changed it to the one in your profile.</p>';
/** The stars the rated request gets through `POST /api/csat`. */
export const LIST_RATING = 4;
/** A state change, the note, a rating: each shows within this (one webhook retry after 5 s included). */
const SHOW_TIMEOUT_MS = 15_000;
/** The reconciler looks every minute; after the seeding, the list rounds wait for its next look. */
const LOOK_TIMEOUT_MS = 75_000;
/** After that look, its invalidations (if any) and the reads again they cause. */
const LOOK_SETTLE_MS = 1_000;

const listOf = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      state: z.string(),
      rated: z.boolean(),
      rating: z.number().optional(),
    }),
  ),
});
type ListRow = z.infer<typeof listOf>['items'][number];

/** The user's requests as the list poll should show them: open ones, closed ones, one rated. */
export interface SeededList {
  /** `GET /api/conversations` with the owner's session token. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Every request of the user's, oldest first: the polled conversation, then `EXTRA_TEXTS`'. */
  readonly conversationIds: readonly string[];
  /** The closed request rated `LIST_RATING`. */
  readonly ratedId: string;
  /** The other closed one, left unrated. */
  readonly closedId: string;
  /** The log's mark once the seeding (note at Intercom included) was over. */
  readonly seededAt: number;
}

/** `check` every `PROBE_MS` until it answers true; an error after `timeoutMs`. */
async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  signal: AbortSignal,
) {
  const end = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50, undefined, { signal });
  }
}

/**
 * What a list row must say: the rated request `rated: true` with its stars (decision 029: every row gets
 * `rated` and, when rated, `rating`), every other one `rated: false` and no stars.
 */
const rowShowsRating = (row: ListRow, ratedId: string) =>
  row.id === ratedId ? row.rated && row.rating === LIST_RATING : !row.rated && row.rating === undefined;

/** The list's answer is right: every request of the user's once, the states and the rated overlay. */
function listIsRight(rows: readonly ListRow[], seeded: SeededList): boolean {
  const ids = rows.map((r) => r.id);
  const closed = new Set([seeded.ratedId, seeded.closedId]);
  return (
    ids.length === seeded.conversationIds.length &&
    seeded.conversationIds.every((id) => ids.includes(id)) &&
    rows.every((r) => r.state === (closed.has(r.id) ? 'closed' : 'open')) &&
    rows.every((r) => rowShowsRating(r, seeded.ratedId))
  );
}

/**
 * The polled user opens `EXTRA_TEXTS.length` more requests through the client API; the team answers the
 * first and closes the other two (the sandbox operator: signed webhooks); once the user's poll shows them
 * closed, the user rates the first closed one through `POST /api/csat`. Its note and tag at Intercom (the
 * csat-notes processor, after the 201) and their webhooks are waited for, so that nothing of the seeding
 * is still on its way when the load starts.
 */
export async function seedConversationList(
  service: Service,
  chat: SeededChat,
  log: CallLog,
  signal: AbortSignal,
): Promise<SeededList> {
  const { operator, state } = sandboxOf(service);
  const json = { ...chat.headers, 'content-type': 'application/json' };
  const post = (path: string, body: unknown, status: number) =>
    call(
      `${service.base}/api${path}`,
      { method: 'POST', headers: json, body: JSON.stringify(body), signal },
      status,
    );
  const opened: string[] = [];
  for (const text of EXTRA_TEXTS) {
    const sent = z.object({ conversationId: z.string() }).parse(await post('/conversations', { text }, 201));
    opened.push(sent.conversationId);
  }
  const [answered, ratedId, closedId] = opened;
  if (answered === undefined || ratedId === undefined || closedId === undefined) {
    throw new Error('list seeding: a request was not opened');
  }
  await operator.reply(answered, { body: ADDRESS_REPLY });
  await operator.close(ratedId);
  await operator.close(closedId);
  await webhooksSettled(service, signal);
  for (const id of [ratedId, closedId]) {
    await until(
      `the poll of ${id} showing it closed`,
      async () =>
        (await pollOnce(`${service.base}/api/conversations/${id}`, chat.headers, signal)).conversation
          .state === 'closed',
      SHOW_TIMEOUT_MS,
      signal,
    );
  }
  const rating = z
    .object({ targetType: z.literal('conversation'), targetId: z.literal(ratedId), rating: z.number() })
    .parse(await post('/csat', { targetType: 'conversation', targetId: ratedId, rating: LIST_RATING }, 201));
  if (rating.rating !== LIST_RATING) throw new Error(`csat: rated ${rating.rating}, not ${LIST_RATING}`);
  await until(
    `the csat note and tag on ${ratedId} at Intercom`,
    () => {
      const conversation = state.conversations.get(ratedId);
      const noted = (conversation?.parts ?? []).some(
        (p) => p.partType === 'note' && (p.body ?? '').includes(`CSAT ${LIST_RATING}/5`),
      );
      return noted && (conversation?.tags.length ?? 0) > 0;
    },
    SHOW_TIMEOUT_MS,
    signal,
  );
  await webhooksSettled(service, signal);
  const seeded = {
    url: `${service.base}/api/conversations`,
    headers: chat.headers,
    conversationIds: [chat.conversationId, ...opened],
    ratedId,
    closedId,
    seededAt: log.mark(),
  };
  const { rows } = await pollList(seeded, signal);
  if (!listIsRight(rows, seeded)) {
    throw new Error(`list poll check failed after the seeding: ${JSON.stringify(rows)}`);
  }
  return seeded;
}

async function pollList(seeded: SeededList, signal: AbortSignal) {
  const response = await fetch(seeded.url, { headers: seeded.headers, signal });
  const text = await response.text();
  const etag = response.headers.get('etag');
  if (response.status !== 200 || !etag) {
    throw new Error(`list poll failed: ${response.status} ${etag ?? 'no ETag'} ${text.slice(0, 300)}`);
  }
  return { rows: listOf.parse(JSON.parse(text)).items, text, etag };
}

/**
 * Waits for the reconciler's first look that began after the seeding (its `POST /tickets/search`; one a
 * minute), then `LOOK_SETTLE_MS`: every change of the seeding has then been found and invalidated once, and
 * the list rounds start with nothing of the seeding still to come. Answers how long it waited.
 */
export async function reconcilerCaughtUp(
  seeded: SeededList,
  log: CallLog,
  signal: AbortSignal,
): Promise<number> {
  const started = performance.now();
  const looked = () => {
    log.mark();
    return log.calls.some(
      (c) => c.at > seeded.seededAt && c.method === 'POST' && c.path === '/tickets/search',
    );
  };
  if (!looked()) await until('a reconciler look after the seeding', looked, LOOK_TIMEOUT_MS, signal);
  await sleep(LOOK_SETTLE_MS, undefined, { signal });
  return performance.now() - started;
}

/** How the list answers of the load compared with the checked one. */
export interface ListChecks {
  /** 200 bodies byte for byte the checked one. */
  readonly same: number;
  /** 200 bodies that differed but, parsed, still showed the rating right. */
  readonly otherButRight: number;
  /** 200 bodies that did not show the rating right, or could not be read: the run is invalid. */
  readonly wrong: number;
}

/** The list poll's two targets, checked once first, and the checks every 200 of the load gets. */
export interface ListTargets {
  /** No If-None-Match: answered 200, every body checked. */
  readonly list200: Target;
  /** The ETag of the checked 200: answered 304, so the client's copy, rated, is the current one. */
  readonly list304: Target;
  readonly bodyBytes: number;
  readonly items: number;
  readonly etag: string;
  checks(): ListChecks;
}

/**
 * One poll of the list must answer 200 with every request, the states and the rated overlay right, and
 * an ETag; the same with `If-None-Match`, 304. The load's 200s are compared with that body (a string
 * compare per answer, in autocannon's `onResponse`); one that differs is parsed and checked.
 */
export async function listTargets(seeded: SeededList, signal: AbortSignal): Promise<ListTargets> {
  const { rows, text, etag } = await pollList(seeded, signal);
  if (!listIsRight(rows, seeded)) throw new Error(`list poll check failed: ${JSON.stringify(rows)}`);
  const conditional = { ...seeded.headers, 'if-none-match': etag };
  const again = await fetch(seeded.url, { headers: conditional, signal });
  if (again.status !== 304) throw new Error(`list poll check with If-None-Match failed: ${again.status}`);

  const counts = { same: 0, otherButRight: 0, wrong: 0 };
  const onResponse = (status: number, body: string) => {
    if (status !== 200) return;
    if (body === text) {
      counts.same++;
      return;
    }
    try {
      if (listIsRight(listOf.parse(JSON.parse(body)).items, seeded)) counts.otherButRight++;
      else counts.wrong++;
    } catch {
      counts.wrong++;
    }
  };
  return {
    list200: { url: seeded.url, headers: seeded.headers, requests: [{ method: 'GET', onResponse }] },
    list304: { url: seeded.url, headers: conditional, expectedStatus: 304 },
    bodyBytes: Buffer.byteLength(text),
    items: rows.length,
    etag,
    checks: () => ({ ...counts }),
  };
}
