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
      // Loaded only when chosen: the embedded default never pays for the SDK at start-up. Lambdas
      // of groups that do not use the object store are bundled with this branch compiled out
      // (capabilityDefines in infra/bundling.ts), and CDK gives them no OBJECT_STORE to reach it.
      if (process.env.TESSERA_BUNDLE_OBJECT_STORE !== 'excluded') {
        const { S3ObjectStore, s3ClientFor } = await import('./s3-object-store.ts');
        return new S3ObjectStore({ client: s3ClientFor(settings), bucket: settings.bucket });
      }
      throw new Error('This function was bundled without the S3 object store (its group does not use it)');
    }
  }
}
