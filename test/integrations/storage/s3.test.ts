import { s3Storage } from '../../../src/integrations/storage/s3.ts';
import { startTestS3 } from '../../support/s3.ts';
import { storageContract } from './contract.ts';

storageContract('s3 storage', async () => {
  const s3 = await startTestS3();
  const storage = s3Storage({
    bucket: s3.bucket,
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: s3.credentials,
  });
  return {
    storage,
    cleanup: async () => {
      await storage.close();
      await s3.stop();
    },
  };
});
