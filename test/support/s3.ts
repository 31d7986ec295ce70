import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

const region = process.env.S3_REGION ?? 'us-east-1';

export interface TestS3 {
  readonly endpoint: string;
  readonly bucket: string;
  readonly region: string;
  /** undefined: the SDK's default chain (AWS_ACCESS_KEY_ID and the rest). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
  stop(): Promise<void>;
}

/**
 * An S3 server for tests: the one at S3_ENDPOINT when set (S3_BUCKET, or a fresh bucket there, and the
 * AWS_* credentials of the environment), otherwise s3rver on loopback with a fresh bucket in a temporary
 * directory of its own. Clients must use path-style addressing: loopback has no bucket subdomains.
 */
export async function startTestS3(): Promise<TestS3> {
  const external = process.env.S3_ENDPOINT;
  if (external) {
    const credentials = environmentCredentials();
    const bucket = process.env.S3_BUCKET ?? (await createBucket(external, credentials));
    return { endpoint: external, bucket, region, credentials, stop: async () => {} };
  }
  const directory = await mkdtemp(join(tmpdir(), 'svc-test-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  fixFirstByteRange(server);
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return {
    endpoint,
    bucket: await createBucket(endpoint, credentials),
    region,
    credentials,
    stop: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function environmentCredentials(): TestS3['credentials'] {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = process.env;
  return accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined;
}

async function createBucket(endpoint: string, credentials: TestS3['credentials']): Promise<string> {
  // Bucket names: 3 to 63 lowercase letters, digits and hyphens.
  const bucket = `svc-test-${randomBytes(8).toString('hex')}`;
  const client = new S3Client({
    endpoint,
    credentials,
    region,
    forcePathStyle: true,
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return bucket;
}

/**
 * s3rver 3.7.1 takes Range `bytes=0-0` for `bytes=0-` (it reads an end of 0 as none) and serves the
 * whole object. A boxed 0 passes its `end || Infinity` and still compares as 0 in its Math.min.
 */
function fixFirstByteRange(server: S3rver): void {
  const { store } = server;
  const getObject = store.getObject.bind(store);
  store.getObject = (bucket, key, options) =>
    getObject(bucket, key, options?.end === 0 ? { ...options, end: Object(0) as number } : options);
}
