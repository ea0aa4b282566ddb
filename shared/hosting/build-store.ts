// The builds store: where frontend builds' files live. A folder under DATA_DIR locally (the dev
// server serves from it), the builds bucket behind CloudFront when deployed. Opened once per
// process and configuration.
import type { HostingConfig } from '#shared/config.ts';
import { FilesystemObjectStore } from '#shared/storage/filesystem-object-store.ts';
import type { ObjectStore } from '#shared/storage/object-store.ts';

const opened = new WeakMap<HostingConfig['store'], Promise<ObjectStore>>();

async function openBuildStore(settings: HostingConfig['store']): Promise<ObjectStore> {
  if (settings.backend === 'filesystem') return new FilesystemObjectStore(settings.root);
  // Loaded only when chosen, as for the object store (see shared/storage/open-object-store.ts).
  const { S3ObjectStore, s3ClientFor } = await import('#shared/storage/s3-object-store.ts');
  return new S3ObjectStore({ client: s3ClientFor(settings), bucket: settings.bucket });
}

export function buildStoreFor(config: Pick<HostingConfig, 'store'>): Promise<ObjectStore> {
  let store = opened.get(config.store);
  if (store === undefined) {
    store = openBuildStore(config.store);
    opened.set(config.store, store);
  }
  return store;
}
