// Picks the object-store adapter the configuration names.
import type { Config } from '#shared/config.ts';
import { FilesystemObjectStore } from './filesystem-object-store.ts';
import type { ObjectStore } from './object-store.ts';

export function openObjectStore(config: Config): ObjectStore {
  switch (config.objectStore.backend) {
    case 'filesystem':
      return new FilesystemObjectStore(config.objectStore.root);
  }
}
