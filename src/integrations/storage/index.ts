import type { Config } from '../../config.ts';
import { localStorage } from './local.ts';
import type { ObjectStorage } from './port.ts';
import { s3Storage } from './s3.ts';

export type StorageConfig = Pick<
  Config,
  'S3_BUCKET' | 'S3_REGION' | 'S3_ENDPOINT' | 'S3_FORCE_PATH_STYLE' | 'UPLOAD_DIR'
>;

/** S3 when a bucket is configured, else a local directory (refused at boot under REQUIRE_OBJECT_STORE=1). */
export function createStorage(config: StorageConfig): ObjectStorage {
  if (config.S3_BUCKET) {
    return s3Storage({
      bucket: config.S3_BUCKET,
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
    });
  }
  return localStorage(config.UPLOAD_DIR);
}
