import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/http/logger.ts';
import { createStopStack } from '../../src/wiring/stop-stack.ts';
import { LogCapture } from '../support/app.ts';

const logged = (logs: LogCapture) =>
  logs.lines.map((line) => JSON.parse(line) as { msg?: string; err?: { message?: string } });

describe('the stop stack', () => {
  it('stops the newest part first, runs every stop after one that failed, and says it was not clean', async () => {
    const logs = new LogCapture();
    const stack = createStopStack(createLogger('info', logs));
    const stopped: string[] = [];
    stack.push('first', async () => {
      stopped.push('first');
    });
    stack.push('second', () => Promise.reject(new Error('socket already gone')));
    stack.push('third', async () => {
      stopped.push('third');
    });

    expect(await stack.stopAll()).toBe(false);
    expect(stopped).toEqual(['third', 'first']);
    expect(logged(logs).map((line) => [line.msg, line.err?.message])).toEqual([
      ['shutdown: second failed', 'socket already gone'],
    ]);
  });

  it('counts a nested stack that was not clean, and stops what a start under way pushes meanwhile', async () => {
    const stack = createStopStack(createLogger('silent'));
    const stopped: string[] = [];
    stack.push('pool', async () => {
      stopped.push('pool');
    });
    // A start still running when the signal came: its part arrives while the stop is under way.
    stack.push('service', async () => {
      stack.push('late part', async () => {
        stopped.push('late part');
      });
      stopped.push('service');
      return false;
    });

    expect(await stack.stopAll()).toBe(false);
    expect(stopped).toEqual(['service', 'late part', 'pool']);
    // Nothing is left to stop a second time.
    expect(await stack.stopAll()).toBe(true);
    expect(stopped).toHaveLength(3);
  });

  it('resolves true when every part stopped', async () => {
    const stack = createStopStack(createLogger('silent'));
    stack.push('only', () => Promise.resolve());
    expect(await stack.stopAll()).toBe(true);
  });
});
