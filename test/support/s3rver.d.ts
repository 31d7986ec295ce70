// s3rver ships no types; only what test/support/s3.ts uses.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  export interface S3rverOptions {
    readonly address?: string;
    readonly port?: number;
    readonly silent?: boolean;
    readonly directory: string;
  }

  export interface ObjectRange {
    readonly start?: number;
    readonly end?: number;
  }

  export interface FilesystemStore {
    getObject(bucket: string, key: string, options?: ObjectRange): Promise<unknown>;
  }

  export default class S3rver {
    readonly store: FilesystemStore;
    constructor(options: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
