// The deployed host → build map: the calls the hosting function makes on the CloudFront
// KeyValueStore (ETag read, then PutKey / DeleteKey with IfMatch, again after a conflict), and
// that the client really signs them with SigV4a (the KeyValueStore API accepts nothing else).
import {
  CloudFrontKeyValueStoreClient,
  ConflictException,
  DeleteKeyCommand,
  DescribeKeyValueStoreCommand,
  PutKeyCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { KvsHostMappingStore } from '#shared/hosting/kvs-host-mappings.ts';

const KVS_ARN = 'arn:aws:cloudfront::123456789012:key-value-store/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const described = { KvsARN: KVS_ARN, ItemCount: 0, TotalSizeInBytes: 0, Created: new Date(0) };

function conflict(): ConflictException {
  return new ConflictException({ message: 'Pre-condition failed', $metadata: {} });
}

describe('the KeyValueStore host map', () => {
  const kvs = mockClient(CloudFrontKeyValueStoreClient);
  afterEach(() => kvs.reset());
  afterAll(() => kvs.restore());

  it('points a host at its build with the store ETag it just read, and deletes a host the same way', async () => {
    kvs
      .on(DescribeKeyValueStoreCommand)
      .resolvesOnce({ ...described, ETag: 'etag-1' })
      .resolvesOnce({ ...described, ETag: 'etag-2' });
    kvs.on(PutKeyCommand).resolves({ ETag: 'etag-2', ItemCount: 1, TotalSizeInBytes: 40 });
    kvs.on(DeleteKeyCommand).resolves({ ETag: 'etag-3', ItemCount: 0, TotalSizeInBytes: 0 });
    const store = new KvsHostMappingStore(KVS_ARN, new CloudFrontKeyValueStoreClient({ region: 'us-east-1' }));

    await store.apply([
      { host: 'new.sites.example.org', buildPrefix: 'site-uuid/build-uuid' },
      { host: 'old.sites.example.org', buildPrefix: undefined },
    ]);

    expect(kvs.commandCalls(DescribeKeyValueStoreCommand).map((call) => call.args[0].input)).toEqual([
      { KvsARN: KVS_ARN },
      { KvsARN: KVS_ARN },
    ]);
    expect(kvs.commandCalls(PutKeyCommand).map((call) => call.args[0].input)).toEqual([
      { KvsARN: KVS_ARN, Key: 'new.sites.example.org', Value: 'site-uuid/build-uuid', IfMatch: 'etag-1' },
    ]);
    expect(kvs.commandCalls(DeleteKeyCommand).map((call) => call.args[0].input)).toEqual([
      { KvsARN: KVS_ARN, Key: 'old.sites.example.org', IfMatch: 'etag-2' },
    ]);
  });

  it('reads the ETag again and retries when another writer changed the store first', async () => {
    kvs
      .on(DescribeKeyValueStoreCommand)
      .resolvesOnce({ ...described, ETag: 'stale' })
      .resolvesOnce({ ...described, ETag: 'still-stale' })
      .resolves({ ...described, ETag: 'fresh' });
    kvs.on(PutKeyCommand, { IfMatch: 'fresh' }).resolves({ ETag: 'next', ItemCount: 1, TotalSizeInBytes: 40 });
    kvs.on(PutKeyCommand, { IfMatch: 'stale' }).rejects(conflict());
    kvs.on(PutKeyCommand, { IfMatch: 'still-stale' }).rejects(conflict());
    const store = new KvsHostMappingStore(KVS_ARN, new CloudFrontKeyValueStoreClient({ region: 'us-east-1' }));

    await store.apply([{ host: 'web.sites.example.org', buildPrefix: 'site-uuid/build-2' }]);

    expect(kvs.commandCalls(PutKeyCommand).map((call) => call.args[0].input.IfMatch)).toEqual(['stale', 'still-stale', 'fresh']);
  });

  it('gives up after five conflicts in a row, and passes other errors on at once', async () => {
    kvs.on(DescribeKeyValueStoreCommand).resolves({ ...described, ETag: 'etag' });
    kvs.on(PutKeyCommand).rejects(conflict());
    const store = new KvsHostMappingStore(KVS_ARN, new CloudFrontKeyValueStoreClient({ region: 'us-east-1' }));

    await expect(store.apply([{ host: 'web.sites.example.org', buildPrefix: 'p' }])).rejects.toBeInstanceOf(ConflictException);
    expect(kvs.commandCalls(PutKeyCommand)).toHaveLength(5);

    kvs.reset();
    kvs.on(DescribeKeyValueStoreCommand).resolves({ ...described, ETag: 'etag' });
    kvs.on(PutKeyCommand).rejects(new Error('AccessDenied'));
    await expect(store.apply([{ host: 'web.sites.example.org', buildPrefix: 'p' }])).rejects.toThrow('AccessDenied');
    expect(kvs.commandCalls(PutKeyCommand)).toHaveLength(1);
  });

  it('takes deleting a host the store does not hold as done', async () => {
    kvs.on(DescribeKeyValueStoreCommand).resolves({ ...described, ETag: 'etag' });
    kvs.on(DeleteKeyCommand).rejects(new ResourceNotFoundException({ message: 'Key not found', $metadata: {} }));
    const store = new KvsHostMappingStore(KVS_ARN, new CloudFrontKeyValueStoreClient({ region: 'us-east-1' }));

    await store.apply([{ host: 'gone.sites.example.org', buildPrefix: undefined }]);

    expect(kvs.commandCalls(DeleteKeyCommand)).toHaveLength(1);
  });
});

describe('the KeyValueStore client the host map uses', () => {
  it('signs with SigV4a on the account-specific endpoint', async () => {
    const seen: Array<{ hostname: string; authorization: string | undefined }> = [];
    const client = new CloudFrontKeyValueStoreClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
      requestHandler: {
        handle: async (request: { hostname: string; headers: Record<string, string> }) => {
          seen.push({ hostname: request.hostname, authorization: request.headers.authorization });
          const body = JSON.stringify({ KvsARN: KVS_ARN, ItemCount: 0, TotalSizeInBytes: 0, Created: 0, ETag: 'e' });
          const { Readable } = await import('node:stream');
          return {
            response: { statusCode: 200, headers: { 'content-type': 'application/json', etag: 'e' }, body: Readable.from([body]) },
          };
        },
      },
    });

    await new KvsHostMappingStore(KVS_ARN, client).apply([{ host: 'web.sites.example.org', buildPrefix: 'p' }]);

    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const request of seen) {
      expect(request.hostname).toBe('123456789012.cloudfront-kvs.global.api.aws');
      expect(request.authorization).toMatch(/^AWS4-ECDSA-P256-SHA256 Credential=AKIDEXAMPLE\//);
    }
  });
});
