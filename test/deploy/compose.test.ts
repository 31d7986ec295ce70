import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { KURRENTDB_IMAGE } from '../support/kurrentdb.ts';

// No container runtime here: docker-compose.yml is checked as parsed YAML (with the merge keys Compose
// resolves), for the two shapes it runs: KurrentDB as the event store by default, PostgreSQL under the
// postgres-store profile.
const dependency = z.object({ condition: z.string() });
const serviceSchema = z.object({
  image: z.string().optional(),
  profiles: z.array(z.string()).optional(),
  depends_on: z.record(z.string(), dependency).optional(),
  environment: z.record(z.string(), z.string()).optional(),
  networks: z.object({ default: z.object({ aliases: z.array(z.string()) }) }).optional(),
  healthcheck: z.object({ test: z.array(z.string()) }).optional(),
});
type Service = z.infer<typeof serviceSchema>;
const compose = z
  .object({ services: z.record(z.string(), serviceSchema) })
  .parse(parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }));
const services = compose.services;

const service = (name: string): Service => {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};
/** Every service `name` waits for, directly or through another. */
function dependenciesOf(name: string, seen = new Set<string>()): Set<string> {
  for (const next of Object.keys(service(name).depends_on ?? {})) {
    if (seen.has(next)) continue;
    seen.add(next);
    dependenciesOf(next, seen);
  }
  return seen;
}
const without = <T>(entries: Record<string, T> | undefined, ...names: string[]) =>
  Object.fromEntries(Object.entries(entries ?? {}).filter(([name]) => !names.includes(name)));

describe('docker-compose.yml', () => {
  it('pins every image to an exact version, and runs the KurrentDB the tests start', () => {
    for (const [name, { image }] of Object.entries(services)) {
      expect(image, name).toMatch(/^[\w./-]+:(\d[\w.-]*|local)$/);
    }
    expect(service('kurrentdb').image).toBe(KURRENTDB_IMAGE);
  });

  it('names only services it defines as dependencies', () => {
    for (const name of Object.keys(services)) {
      for (const next of dependenciesOf(name)) expect(Object.keys(services), name).toContain(next);
    }
  });

  it('keeps KurrentDB as the event store of the default shape', () => {
    for (const name of ['api', 'worker', 'proxy', 'kurrentdb'])
      expect(service(name).profiles, name).toBeUndefined();
    for (const name of ['api', 'worker']) {
      expect(service(name).environment).toMatchObject({
        EVENT_STORE: 'kurrentdb',
        EVENTSTORE_URL: expect.stringMatching(/^kurrentdb:\/\/kurrentdb:2113\b/) as unknown,
      });
      expect(service(name).depends_on?.kurrentdb).toEqual({ condition: 'service_healthy' });
    }
    expect(dependenciesOf('proxy')).toContain('kurrentdb');
  });

  it('runs the same service on the PostgreSQL store under the postgres-store profile, without kurrentdb', () => {
    for (const [name, like] of [
      ['api-pg', 'api'],
      ['worker-pg', 'worker'],
    ] as const) {
      const pg = service(name);
      expect(pg.profiles).toEqual(['postgres-store']);
      expect(pg.environment).toMatchObject({ EVENT_STORE: 'postgres', EVENTSTORE_URL: '' });
      // Otherwise started exactly as the KurrentDB shape's process.
      expect(without(pg.environment, 'EVENT_STORE', 'EVENTSTORE_URL')).toEqual(
        without(service(like).environment, 'EVENT_STORE', 'EVENTSTORE_URL'),
      );
      expect(pg.healthcheck).toEqual(service(like).healthcheck);
      expect(pg.image).toBe(service(like).image);
      expect(without(pg.depends_on)).toEqual(without(service(like).depends_on, 'kurrentdb'));
    }
    const proxy = service('proxy-pg');
    expect(proxy.profiles).toEqual(['postgres-store']);
    expect(Object.keys(proxy.depends_on ?? {})).toEqual(['api-pg']);
    // deploy/nginx.conf proxies to `api`: the PostgreSQL shape's API answers to that name too.
    expect(service('api-pg').networks?.default.aliases).toEqual(['api']);
    for (const name of ['api-pg', 'worker-pg', 'proxy-pg']) {
      expect(dependenciesOf(name), name).not.toContain('kurrentdb');
      expect(dependenciesOf(name), name).toContain('postgres');
    }
  });
});
