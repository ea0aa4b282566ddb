// Picks the object-store adapter the configuration names.
import type { Config } from '#shared/config.ts';
import { FilesystemObjectStore } from './filesystem-object-store.ts';
import type { ObjectStore } from './object-store.ts';

export async function openObjectStore(config: Pick<Config, 'objectStore'>): Promise<ObjectStore> {
  const settings = config.objectStore;
  switch (settings.backend) {
    case 'filesystem':
      return new FilesystemObjectStore(settings.root);
    case 's3': {
      // Loaded only when chosen: the embedded default never pays for the SDK at start-up.
      const { S3ObjectStore, s3ClientFor } = await import('./s3-object-store.ts');
      return new S3ObjectStore({ client: s3ClientFor(settings), bucket: settings.bucket });
    }
  }
}
