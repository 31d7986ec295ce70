import { readFile } from 'node:fs/promises';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  CONFIGURATION_DOC,
  configurationMarkdown,
  ENV_EXAMPLE,
  envExample,
  settingsByGroup,
} from '../../scripts/config-docs.ts';
import { envSchema, productionGuards } from '../../src/config.ts';

const outOfDate = (file: string) => `${file} is out of date: run \`npm run docs:config\` and commit it`;

// Both files are rendered from envSchema (src/config.ts); a setting added, removed or redescribed there
// without `npm run docs:config` fails here.
describe('the configuration reference', () => {
  it('docs/configuration.md is what the schema renders', async () => {
    const committed = await readFile(CONFIGURATION_DOC, 'utf8');
    expect(committed, outOfDate('docs/configuration.md')).toBe(await configurationMarkdown());
  });

  it('.env.example is what the schema renders', async () => {
    const committed = await readFile(ENV_EXAMPLE, 'utf8');
    expect(committed, outOfDate('.env.example')).toBe(envExample());
  });

  it('lists every setting the schema declares once, each with a meaning', () => {
    const names = settingsByGroup().flatMap((group) => group.settings.map((s) => s.name));
    expect(names.toSorted()).toEqual(Object.keys(envSchema.in.shape).toSorted());
    expect(new Set(names).size).toBe(names.length);
  });

  it('states every production guard, in the words production refuses with', async () => {
    const markdown = await configurationMarkdown();
    for (const guard of productionGuards) expect(markdown, guard.name).toContain(guard.reason);
  });
});

describe('.env.example', () => {
  it('gives the defaults when every line is uncommented, and carries no secret', () => {
    const uncommented = envExample().replace(/^# ([A-Z][A-Z0-9_]*=)/gm, '$1');
    const environment = parseEnv(uncommented);
    expect(Object.keys(environment).toSorted()).toEqual(Object.keys(envSchema.in.shape).toSorted());
    expect(envSchema.parse(environment)).toEqual(envSchema.parse({}));
    for (const secret of [
      'JWT_SECRET',
      'ADMIN_SESSION_SECRET',
      'FILE_URL_SECRET',
      'DATA_KEY_SECRET',
      'SUPPORT_ACCESS_TOKEN',
    ]) {
      expect(environment[secret], secret).toBe('');
    }
  });
});
