import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKurrentDbEventStore } from '../../src/events/store/kurrentdb.ts';
import { createLogger } from '../../src/http/logger.ts';
import { formatReport, parseLeaderKillArgs } from '../../scripts/kurrentdb-leader-kill.ts';
import { runLeaderKillCheck } from '../../scripts/leader-kill/run.ts';
import { type AcknowledgedAppend, type StoredEvent, verifyRun } from '../../scripts/leader-kill/verify.ts';
import { testEvent } from '../events/store/contract.ts';
import { type KurrentDbDouble, startKurrentDbDouble } from '../support/kurrentdb-double/index.ts';
import { spawnService } from '../support/process.ts';

// The leader-kill check (scripts/kurrentdb-leader-kill.ts) run against the KurrentDB protocol double,
// whose injected answers (not leader, unavailable, lost answer) stand in for the leader going away: this
// shows that the script counts, verifies and fails as it should, not what a real cluster does.
const logger = createLogger('silent');

let double: KurrentDbDouble;
beforeAll(async () => {
  double = await startKurrentDbDouble();
});
afterEach(() => {
  double.faults.clear();
});
afterAll(async () => {
  await double.stop();
});

/** Arms the faults one after the other while a run appends: a leader change seen from the client. */
async function leaderChange(startAfterMs: number): Promise<void> {
  await sleep(startAfterMs);
  double.faults.notLeaderOnNextAppends(4);
  await sleep(300);
  double.faults.unavailableOnNextAppends(4);
  await sleep(300);
  double.faults.loseAnswerOfNextAppends(4);
}

describe('verifyRun', () => {
  const stream = 's-1';
  const acked: AcknowledgedAppend[] = [
    { stream, ids: ['a', 'b'], nextRevision: 1n },
    { stream, ids: ['c'], nextRevision: 3n },
  ];
  const stored = (ids: readonly string[]): StoredEvent[] => ids.map((id, i) => ({ id, revision: BigInt(i) }));
  const once = (ids: readonly string[]) => new Map(ids.map((id) => [id, 1]));
  const verify = (ids: readonly string[], inAll = once(ids)) =>
    verifyRun(acked, [{ stream, ids: ['x'] }], { streams: new Map([[stream, stored(ids)]]), inAll }).map(
      (f) => `${f.problem} ${f.eventId}`,
    );

  it('passes a stream holding each acknowledged event once, in order, with a failed append landed once', () => {
    expect(verify(['a', 'b', 'x', 'c'])).toEqual([]);
  });

  it('finds doubles, losses, disorder, wrong revisions, strangers and $all mismatches', () => {
    expect(verify(['a', 'b', 'x', 'c', 'c'], new Map([...once(['a', 'b', 'x']), ['c', 2]]))).toEqual([
      'doubled c',
      'not once in $all c',
    ]);
    expect(verify(['a', 'b', 'x'])).toEqual(['lost c']);
    expect(verify(['b', 'a', 'x', 'c'])).toEqual(['out of order b', 'wrong revision b']);
    expect(verify(['a', 'b', 'c'])).toEqual(['wrong revision c']);
    expect(verify(['a', 'b', 'x', 'c', 'z'])).toEqual(['not ours z']);
    expect(verify(['a', 'b', 'x', 'c'], once(['a', 'b', 'x']))).toEqual(['not once in $all c']);
  });
});

describe('the leader-kill check against the protocol double', () => {
  it('rides through not-leader, unavailable and lost answers: every acknowledged event once, in order', async () => {
    const refused = double.faults.refusedAppends;
    const [report] = await Promise.all([
      runLeaderKillCheck({
        connectionString: double.connectionString,
        durationMs: 2_500,
        streams: 8,
        batchMax: 3,
        expected: 'revision',
        logger,
      }),
      leaderChange(500),
    ]);
    expect(double.faults.refusedAppends - refused).toBe(12);
    expect(report.findings).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.failed).toBe(0);
    expect(report.acknowledged).toBe(report.attempted);
    // The lost answers were found again by the retries, not written twice.
    expect(report.answeredAsWritten).toBeGreaterThanOrEqual(4);
    expect(report.eventsStored).toBe(report.eventsAcknowledged);
    expect(formatReport(report)).toContain('OK: every acknowledged event is stored exactly once, in order');
  }, 30_000);

  it('counts appends that ran out of retries as failed, and still verifies what they left', async () => {
    const [report] = await Promise.all([
      runLeaderKillCheck({
        connectionString: double.connectionString,
        durationMs: 1_500,
        streams: 4,
        batchMax: 2,
        expected: 'any',
        logger,
        appendRetry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10 },
      }),
      sleep(300).then(() => {
        double.faults.unavailableOnNextAppends(2);
      }),
    ]);
    // The client drops its connection on an unavailable answer, which can fail other appends in flight.
    expect(Object.keys(report.failures)).toEqual(['UnavailableError']);
    expect(report.failed).toBeGreaterThanOrEqual(2);
    expect(report.ok).toBe(true);
    expect(formatReport(report)).toMatch(/failed (\d+) \(UnavailableError \1\)/);
  }, 30_000);

  it('fails when a stream holds what no writer acknowledged in that place', async () => {
    const category = `leaderKill${randomBytes(4).toString('hex')}`;
    const stranger = randomUUID();
    const [report] = await Promise.all([
      runLeaderKillCheck({
        connectionString: double.connectionString,
        durationMs: 1_500,
        streams: 3,
        batchMax: 1,
        expected: 'revision',
        category,
        logger,
      }),
      sleep(500).then(async () => {
        const other = createKurrentDbEventStore({ connectionString: double.connectionString, logger });
        await other.append(`${category}-0`, [testEvent('intruder', {}, stranger)], 'any');
        await other.close();
      }),
    ]);
    expect(report.ok).toBe(false);
    expect(report.findings).toContainEqual(
      expect.objectContaining({ problem: 'not ours', eventId: stranger, stream: `${category}-0` }),
    );
    expect(formatReport(report)).toMatch(/^not ours: .* event .*\nFAILED: \d+ findings\n$/m);
  }, 30_000);
});

describe('npm run check:leader-kill', () => {
  it('runs the kill command during the run, prints the report and exits 0 when all is well', async () => {
    const run = spawnService(
      process.execPath,
      [
        'scripts/kurrentdb-leader-kill.ts',
        '--duration',
        '3',
        '--streams',
        '5',
        '--kill',
        'echo leader-gone',
        '--kill-at',
        '1',
      ],
      { EVENTSTORE_URL: double.connectionString },
    );
    await run.waitFor(/running --kill: echo leader-gone/, 10_000);
    double.faults.notLeaderOnNextAppends(3);
    double.faults.loseAnswerOfNextAppends(2);
    expect(await run.exited, run.output()).toBe(0);
    expect(run.stderr()).toContain('leader-gone');
    expect(run.stdout()).toMatch(
      /^appends attempted (\d+), acknowledged \1 \([2-9]\d* answered as already written\), failed 0$/m,
    );
    expect(run.stdout()).toContain('kill: echo leader-gone (exit 0)');
    expect(run.stdout()).toContain('OK: every acknowledged event is stored exactly once, in order');
    expect(run.stdout()).not.toContain('leaderKillCheck');
  }, 30_000);

  it('exits 1 when no append is acknowledged, and 2 on bad arguments', async () => {
    double.faults.notLeaderOnNextAppends(100_000);
    const refused = spawnService(
      process.execPath,
      ['scripts/kurrentdb-leader-kill.ts', '--duration', '1', '--streams', '1'],
      { EVENTSTORE_URL: double.connectionString },
    );
    expect(await refused.exited, refused.output()).toBe(1);
    expect(refused.stdout()).toContain('FAILED: no append was acknowledged');

    const bad = spawnService(process.execPath, ['scripts/kurrentdb-leader-kill.ts', '--duration', '0'], {
      EVENTSTORE_URL: double.connectionString,
    });
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain('usage: npm run check:leader-kill');
  }, 60_000);

  it('takes the cluster from EVENTSTORE_URL or --url, and a kill time within the run', () => {
    const url = 'kurrentdb+discover://n1:2113,n2:2113,n3:2113?nodePreference=leader';
    expect(parseLeaderKillArgs(['--kill', 'docker restart n1'], { EVENTSTORE_URL: url })).toMatchObject({
      connectionString: url,
      durationMs: 60_000,
      kill: { command: 'docker restart n1', atMs: 20_000 },
    });
    expect(() => parseLeaderKillArgs([], {})).toThrow();
    expect(() => parseLeaderKillArgs(['--url', url, '--kill', 'x', '--kill-at', '60'], {})).toThrow(/within/);
  });
});
