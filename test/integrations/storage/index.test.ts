import { describe, expect, it } from 'vitest';
import { envSchema } from '../../../src/config.ts';
import { createStorage } from '../../../src/integrations/storage/index.ts';

describe('createStorage', () => {
  it.each([
    ['S3 when S3_BUCKET is set', { S3_BUCKET: 'uploads', S3_ENDPOINT: 'http://127.0.0.1:9' }, 's3'],
    ['a local directory otherwise', { UPLOAD_DIR: '/nonexistent/uploads' }, 'local'],
    ['a local directory when S3_BUCKET is empty', { S3_BUCKET: '' }, 'local'],
  ])('picks %s', async (_name, env, kind) => {
    const storage = createStorage(envSchema.parse(env));
    expect(storage.kind).toBe(kind);
    await storage.close();
  });
});
