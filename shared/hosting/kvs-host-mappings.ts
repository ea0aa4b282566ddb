// The deployed host → build mapping: keys of the CloudFront KeyValueStore the edge host router
// reads (infra/aws/edge-host-router.ts). Every write names the store's current ETag (IfMatch), so
// two writers never overwrite each other unseen: on a conflict the ETag is read again and the
// write retried. The KeyValueStore API is signed with SigV4a, which the JavaScript signer provides
// once registered (the side-effect import below).
import '@aws-sdk/signature-v4a';
import {
  CloudFrontKeyValueStoreClient,
  ConflictException,
  DeleteKeyCommand,
  DescribeKeyValueStoreCommand,
  PutKeyCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import type { CurrentBuildPrefix, HostMapping, HostMappingStore } from './host-mappings.ts';

/** Writes that lost the ETag race this many times in a row give up (a storm of writers). */
const MAX_ATTEMPTS = 5;

export class KvsHostMappingStore implements HostMappingStore {
  constructor(
    private readonly kvsArn: string,
    private readonly client = new CloudFrontKeyValueStoreClient({}),
  ) {}

  async apply(mappings: readonly HostMapping[]): Promise<void> {
    for (const mapping of mappings) await this.write(mapping.host, async () => mapping.buildPrefix);
  }

  async refresh(hosts: readonly string[], current: CurrentBuildPrefix): Promise<void> {
    for (const host of hosts) await this.write(host, current);
  }

  /**
   * Writes `host` → the prefix `prefixOf` answers, read after the store's ETag: a writer that
   * changes the registry and then the store in between makes this write fail on the ETag, and the
   * retry reads the registry again, so a stale answer never overwrites a newer write.
   */
  private async write(host: string, prefixOf: CurrentBuildPrefix): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const ifMatch = await this.currentETag();
      const buildPrefix = await prefixOf(host);
      try {
        if (buildPrefix === undefined) {
          await this.client.send(new DeleteKeyCommand({ KvsARN: this.kvsArn, Key: host, IfMatch: ifMatch }));
        } else {
          await this.client.send(new PutKeyCommand({ KvsARN: this.kvsArn, Key: host, Value: buildPrefix, IfMatch: ifMatch }));
        }
        return;
      } catch (error) {
        // Deleting a host the store does not hold is already done.
        if (buildPrefix === undefined && error instanceof ResourceNotFoundException) return;
        if (!(error instanceof ConflictException) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  private async currentETag(): Promise<string> {
    const described = await this.client.send(new DescribeKeyValueStoreCommand({ KvsARN: this.kvsArn }));
    if (described.ETag === undefined) throw new Error(`KeyValueStore ${this.kvsArn} answered without an ETag`);
    return described.ETag;
  }
}
