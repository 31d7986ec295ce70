import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { roles, type Role } from '../../../src/auth/permissions.ts';
import { rate } from '../../../src/commands/csat.ts';
import type { CsatTargetType } from '../../../src/events/csat.ts';
import { adminCall, createTestAdmin, loginToken } from '../../support/admin.ts';
import { useRunningApp } from '../../support/app.ts';
import { eraseUser } from '../../support/erase-user.ts';

const used = useRunningApp();
const url = () => used.running.url;
const tokens = new Map<Role, string>();
const owner = () => tokens.get('owner') ?? '';

interface Seed {
  readonly targetType: CsatTargetType;
  readonly rating: number;
  readonly at: string;
  readonly comment?: string;
  readonly userId?: string;
}

/** Ratings recorded through the command, at chosen instants, once the projection has them. */
async function seedRatings(seeds: readonly Seed[]): Promise<string[]> {
  const { store, waiter } = used.running.eventSourcing;
  const ids: string[] = [];
  for (const seed of seeds) {
    const command = {
      ratingId: randomUUID(),
      userId: seed.userId ?? `rater-${ids.length}`,
      targetType: seed.targetType,
      targetId: `target-${randomUUID()}`,
      rating: seed.rating,
      comment: seed.comment ?? null,
      at: seed.at,
      targetEnded: true,
    };
    const context = {
      actor: { type: 'user', id: command.userId },
      commandId: randomUUID(),
      correlationId: 'seed',
    };
    const result = await rate(store, command, context as Parameters<typeof rate>[2]);
    expect(await waiter.waitFor(['csat'], result.position)).toBe(true);
    ids.push(result.id);
  }
  return ids;
}

/** Conversations closed at `closedAt` after running `seconds`. */
async function seedDurations(rows: readonly (readonly [closedAt: string, seconds: number])[]): Promise<void> {
  for (const [closedAt, seconds] of rows) {
    const opened = new Date(Date.parse(closedAt) - seconds * 1000).toISOString();
    await used.db.pool.query(sql.unsafe`
      INSERT INTO conversation_durations (conversation_id, opened_at, closed_at, notification_id)
      VALUES (${randomUUID()}, ${opened}::timestamptz, ${closedAt}::timestamptz, ${randomUUID()})`);
  }
}

/** Linear interpolation between the closest ranks, as PostgreSQL's `percentile_cont`. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * p;
  const low = sorted[Math.floor(at)] ?? NaN;
  const high = sorted[Math.ceil(at)] ?? NaN;
  return low + (high - low) * (at - Math.floor(at));
}

const listOf = z.object({
  items: z.array(
    z
      .object({
        id: z.string(),
        userId: z.string().nullable(),
        targetId: z.string(),
        rating: z.number(),
        ratedAt: z.string(),
      })
      .loose(),
  ),
  nextCursor: z.string().nullable(),
  count: z.number(),
  average: z.number().nullable(),
  distribution: z.record(z.string(), z.number()),
  from: z.string(),
  to: z.string(),
});

const MARCH = 'from=2021-03-01T00:00:00Z&to=2021-03-04T00:00:00Z';
let march: string[] = [];

beforeAll(async () => {
  for (const role of roles)
    tokens.set(role, await loginToken(url(), await createTestAdmin(used.db.pool, role)));
  march = await seedRatings([
    { targetType: 'conversation', rating: 5, at: '2021-03-01T10:00:00.000Z', comment: 'Lovely' },
    { targetType: 'conversation', rating: 3, at: '2021-03-01T12:00:00.000Z' },
    { targetType: 'ticket', rating: 1, at: '2021-03-02T09:00:00.000Z' },
    // Same instant as the one before: the cursor's id keeps them apart.
    { targetType: 'conversation', rating: 4, at: '2021-03-02T09:00:00.000Z' },
    { targetType: 'ticket', rating: 4, at: '2021-03-03T23:59:59.999Z' },
  ]);
  // Outside the period on either side (`to` is exclusive).
  await seedRatings([
    { targetType: 'conversation', rating: 2, at: '2021-02-28T23:59:59.999Z' },
    { targetType: 'ticket', rating: 2, at: '2021-03-04T00:00:00.000Z' },
  ]);
});

describe('GET /admin/csat', () => {
  it('pages the ratings newest first and summarises the whole filter', async () => {
    const seen: z.infer<typeof listOf>['items'] = [];
    let cursor: string | null = '';
    let first: z.infer<typeof listOf> | undefined;
    while (cursor !== null) {
      const page = await adminCall(
        url(),
        owner(),
        'GET',
        `/admin/csat?${MARCH}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      const body = listOf.parse(page.body);
      first ??= body;
      expect(body.items.length).toBeLessThanOrEqual(2);
      seen.push(...body.items);
      cursor = body.nextCursor;
    }
    const sameInstant = [march[2], march[3]].sort().reverse();
    expect(seen.map((r) => r.id)).toEqual([march[4], ...sameInstant, march[1], march[0]]);
    expect(first).toMatchObject({
      from: '2021-03-01T00:00:00.000Z',
      to: '2021-03-04T00:00:00.000Z',
      count: 5,
      average: (5 + 3 + 1 + 4 + 4) / 5,
      distribution: { 1: 1, 2: 0, 3: 1, 4: 2, 5: 1 },
    });
    expect(seen.at(-1)).toMatchObject({
      targetType: 'conversation',
      rating: 5,
      comment: 'Lovely',
      ratedAt: '2021-03-01T10:00:00.000Z',
    });
  });

  it('filters by target type, and answers an empty period with a null average', async () => {
    const tickets = listOf.parse(
      (await adminCall(url(), owner(), 'GET', `/admin/csat?${MARCH}&targetType=ticket`)).body,
    );
    expect(tickets.items.map((r) => r.id)).toEqual([march[4], march[2]]);
    expect(tickets).toMatchObject({ count: 2, average: 2.5, distribution: { 1: 1, 2: 0, 3: 0, 4: 1, 5: 0 } });
    const empty = listOf.parse(
      (
        await adminCall(
          url(),
          owner(),
          'GET',
          '/admin/csat?from=2019-01-01T00:00:00Z&to=2019-01-02T00:00:00Z',
        )
      ).body,
    );
    expect(empty).toMatchObject({ items: [], nextCursor: null, count: 0, average: null });
  });

  it("lists an erased user's ratings without their user or comment, and still counts them", async () => {
    const may = 'from=2021-05-01T00:00:00Z&to=2021-05-02T00:00:00Z';
    const [gone, alsoGone, kept] = await seedRatings([
      {
        targetType: 'conversation',
        rating: 1,
        at: '2021-05-01T08:00:00.000Z',
        comment: 'Awful',
        userId: 'qia',
      },
      { targetType: 'ticket', rating: 2, at: '2021-05-01T09:00:00.000Z', userId: 'qia' },
      { targetType: 'ticket', rating: 5, at: '2021-05-01T10:00:00.000Z', comment: 'Great', userId: 'rob' },
    ]);
    await eraseUser(used, 'qia', ['csat']);

    const answer = await adminCall(url(), owner(), 'GET', `/admin/csat?${may}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const body = listOf.parse(answer.body);
    expect(body.items).toEqual([
      expect.objectContaining({ id: kept, userId: 'rob', comment: 'Great', rating: 5 }),
      expect.objectContaining({ id: alsoGone, userId: null, comment: null, rating: 2 }),
      expect.objectContaining({ id: gone, userId: null, comment: null, rating: 1 }),
    ]);
    expect(body).toMatchObject({ count: 3, average: 8 / 3, distribution: { 1: 1, 2: 1, 3: 0, 4: 0, 5: 1 } });
  });

  it('covers the 30 days up to now by default', async () => {
    const [recent] = await seedRatings([{ targetType: 'ticket', rating: 5, at: new Date().toISOString() }]);
    const answer = listOf.parse((await adminCall(url(), owner(), 'GET', '/admin/csat')).body);
    expect(answer.items.map((r) => r.id)).toEqual([recent]);
    expect(Date.parse(answer.to) - Date.parse(answer.from)).toBe(30 * 86_400_000);
  });
});

describe('GET /admin/analytics/csat', () => {
  it('gives the count and average per UTC day, every day of the period listed', async () => {
    const answer = await adminCall(url(), owner(), 'GET', `/admin/analytics/csat?${MARCH}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      from: '2021-03-01T00:00:00.000Z',
      to: '2021-03-04T00:00:00.000Z',
      count: 5,
      average: 17 / 5,
      series: [
        { day: '2021-03-01', count: 2, average: 4 },
        { day: '2021-03-02', count: 2, average: 2.5 },
        { day: '2021-03-03', count: 1, average: 4 },
      ],
    });
  });
});

describe('GET /admin/analytics/conversations', () => {
  it('gives the count, the median and p90 of durations, and a daily series with the median', async () => {
    const first = [60, 120, 300, 3600, 45];
    const third = [10, 20, 30, 40, 50, 60, 70, 80, 90, 1000];
    await seedDurations([
      ...first.map((s) => ['2021-05-01T08:00:00Z', s] as const),
      ['2021-05-02T23:59:59Z', 30],
      ...third.map((s) => ['2021-05-04T12:00:00Z', s] as const),
      // Outside: `to` is exclusive, and the day before.
      ['2021-05-05T00:00:00Z', 99_999],
      ['2021-04-30T23:59:59Z', 99_999],
    ]);
    const all = [...first, 30, ...third];
    const answer = await adminCall(
      url(),
      tokens.get('support') ?? '',
      'GET',
      '/admin/analytics/conversations?from=2021-05-01T00:00:00Z&to=2021-05-05T00:00:00Z',
    );
    expect(answer.status).toBe(200);
    const body = z
      .object({
        count: z.number(),
        medianSeconds: z.number(),
        p90Seconds: z.number(),
        series: z.array(
          z.object({ day: z.string(), count: z.number(), medianSeconds: z.number().nullable() }),
        ),
      })
      .parse(answer.body);
    expect(body.count).toBe(all.length);
    expect(body.medianSeconds).toBeCloseTo(percentile(all, 0.5), 6);
    expect(body.p90Seconds).toBeCloseTo(percentile(all, 0.9), 6);
    expect(body.series.map((d) => [d.day, d.count])).toEqual([
      ['2021-05-01', first.length],
      ['2021-05-02', 1],
      ['2021-05-03', 0],
      ['2021-05-04', third.length],
    ]);
    expect(body.series.map((d) => d.medianSeconds)).toEqual([
      percentile(first, 0.5),
      30,
      null,
      percentile(third, 0.5),
    ]);
  });

  it('answers an empty period with zero and nulls', async () => {
    const answer = await adminCall(
      url(),
      owner(),
      'GET',
      '/admin/analytics/conversations?from=2020-01-01T00:00:00Z&to=2020-01-01T00:00:00Z',
    );
    expect(answer.body).toMatchObject({ count: 0, medianSeconds: null, p90Seconds: null, series: [] });
  });
});

describe('the period and paging parameters', () => {
  const forged = Buffer.from(`2026-13-01T00:00:00.000Z ${randomUUID()}`).toString('base64url');
  it.each([
    ['from after to', '/admin/analytics/csat?from=2021-03-02T00:00:00Z&to=2021-03-01T00:00:00Z'],
    [
      'more than 366 days',
      '/admin/analytics/conversations?from=2025-01-01T00:00:00Z&to=2026-01-03T00:00:00Z',
    ],
    ['not a date-time', '/admin/csat?from=yesterday'],
    ['a date without a time', '/admin/analytics/csat?from=2026-03-01'],
    ['past the year 9999', '/admin/analytics/csat?from=9999-12-31T00:00:00Z&to=9999-12-31T23:00:00-14:00'],
    ['before 1970', '/admin/csat?from=1969-12-31T00:00:00Z&to=1970-01-02T00:00:00Z'],
    ['an unknown target type', '/admin/csat?targetType=post'],
    ['a cursor of another list', '/admin/csat?cursor=bm90LWEtY3Vyc29y'],
    ['a forged cursor', `/admin/csat?cursor=${forged}`],
    ['a limit of 0', '/admin/csat?limit=0'],
  ])('refuses %s with 400 problem+json', async (_label, path) => {
    const answer = await adminCall(url(), owner(), 'GET', path);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(answer.body).toMatchObject({ code: 'validation_failed' });
  });

  it('accepts exactly 366 days, and offsets', async () => {
    const answer = await adminCall(
      url(),
      owner(),
      'GET',
      '/admin/analytics/csat?from=2025-03-01T00:00:00%2B02:00&to=2026-03-02T00:00:00%2B02:00',
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ from: '2025-02-28T22:00:00.000Z', to: '2026-03-01T22:00:00.000Z' });
  });
});

describe('who may read them', () => {
  const paths = ['/admin/csat', '/admin/analytics/conversations', '/admin/analytics/csat'];
  const allowed: readonly Role[] = ['owner', 'support', 'auditor'];
  it.each(roles.map((role) => [role, allowed.includes(role)] as const))(
    '%s: allowed %s',
    async (role, may) => {
      for (const path of paths) {
        const answer = await adminCall(url(), tokens.get(role) ?? '', 'GET', path);
        expect(answer.status, path).toBe(may ? 200 : 403);
      }
    },
  );
});
