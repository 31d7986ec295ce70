import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/http/logger.ts';
import { lazyRequestLogger } from '../../src/http/request-logger.ts';
import { LogCapture } from '../support/app.ts';

const lines = (capture: LogCapture) => capture.lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('lazyRequestLogger', () => {
  it('writes what a child would, with its bindings, at and above the parent level', () => {
    const capture = new LogCapture();
    const parent = createLogger('warn', capture);
    const log = lazyRequestLogger(parent, { reqId: 'r-1' }, {});
    log.info('not written');
    log.debug({ a: 1 }, 'not written either');
    log.warn({ token: 'secret-token-marker' }, 'written');
    log.error('also written');
    expect(lines(capture).map((l) => [l.reqId, l.msg, l.level])).toEqual([
      ['r-1', 'written', 40],
      ['r-1', 'also written', 50],
    ]);
    // The redaction still applies to what the child writes.
    expect(capture.text).not.toContain('secret-token-marker');
    expect(log.level).toBe('warn');
  });

  it("follows a route's own level, and a level set on it later", () => {
    const capture = new LogCapture();
    const parent = createLogger('info', capture);
    const quiet = lazyRequestLogger(parent, { reqId: 'r-2' }, { level: 'error' });
    quiet.warn('below the route level');
    quiet.error('at the route level');
    const loud = lazyRequestLogger(parent, { reqId: 'r-3' }, {});
    loud.debug('below the parent level');
    loud.level = 'debug';
    loud.debug('after the change');
    loud.child({ step: 'inner' }).info('from a grandchild');
    expect(lines(capture).map((l) => [l.reqId, l.msg, l.step])).toEqual([
      ['r-2', 'at the route level', undefined],
      ['r-3', 'after the change', undefined],
      ['r-3', 'from a grandchild', 'inner'],
    ]);
    expect(quiet.level).toBe('error');
  });

  describe('as fastify’s child logger factory', () => {
    const apps: { close(): Promise<unknown> }[] = [];
    afterEach(async () => {
      await Promise.all(apps.splice(0).map((a) => a.close()));
    });

    it('makes no child for a request that writes nothing, and binds the request id when one does', async () => {
      const capture = new LogCapture();
      const parent = createLogger('warn', capture);
      let children = 0;
      const counted = new Proxy(parent, {
        get: (target, key, receiver) =>
          key === 'child'
            ? (...args: Parameters<typeof parent.child>) => {
                children += 1;
                return target.child(...args);
              }
            : (Reflect.get(target, key, receiver) as unknown),
      });
      const app = Fastify({
        loggerInstance: parent,
        genReqId: () => 'req-fixed',
        childLoggerFactory: (_logger, bindings, options) => lazyRequestLogger(counted, bindings, options),
      });
      apps.push(app);
      app.get('/quiet', async (request) => {
        request.log.info('below warn');
        return { ok: true };
      });
      app.get('/loud', async (request) => {
        request.log.warn('a warning');
        return { ok: true };
      });
      expect((await app.inject('/quiet')).statusCode).toBe(200);
      expect(children).toBe(0);
      expect((await app.inject('/loud')).statusCode).toBe(200);
      expect(children).toBe(1);
      expect(lines(capture).map((l) => [l.reqId, l.msg])).toEqual([['req-fixed', 'a warning']]);
    });
  });
});
