// The part of s3rver's API the tests use (the package ships no types).
declare module 's3rver' {
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    resetOnClose?: boolean;
    configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>;
  }

  /** Its filesystem store (lib/stores/filesystem.js). */
  interface S3rverStore {
    existsObject(bucket: string, key: string): Promise<boolean>;
    deleteObject(bucket: string, key: string): Promise<void>;
  }

  export default class S3rver {
    constructor(options: S3rverOptions);
    readonly store: S3rverStore;
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
