// The AES-256-GCM key of tenant secret values. Taken from SECRETS_ENCRYPTION_KEY, else from the
// Secrets Manager secret named by SECRETS_ENCRYPTION_KEY_SECRET_ARN (deployed), else from
// DATA_DIR/secrets-key, generated on first use (local). Loaded once per process and source.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '#shared/config.ts';
import { readSecret } from '#shared/secrets/secret-store.ts';
import { SECRET_KEY_BYTES, SecretKeyError } from './secret-box.ts';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Decodes a base64 key and insists on exactly 32 bytes, so a truncated or mangled key never seals. */
export function parseSecretsKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key = BASE64.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (key.length !== SECRET_KEY_BYTES) {
    throw new SecretKeyError(`The secrets key from ${source} must be ${SECRET_KEY_BYTES} bytes, base64-encoded`);
  }
  return key;
}

async function keyFile(dataDir: string): Promise<Buffer> {
  const file = path.join(dataDir, 'secrets-key');
  try {
    return parseSecretsKey(await readFile(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const generated = randomBytes(SECRET_KEY_BYTES).toString('base64');
  await mkdir(dataDir, { recursive: true });
  // 'wx' fails if another process created the file meanwhile; then use theirs.
  try {
    await writeFile(file, generated, { mode: 0o600, flag: 'wx' });
    return parseSecretsKey(generated, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return parseSecretsKey(await readFile(file, 'utf8'), file);
  }
}

async function loadFrom(settings: Pick<Config, 'secretsKey' | 'dataDir'>): Promise<Buffer> {
  if (settings.secretsKey.value !== undefined) return parseSecretsKey(settings.secretsKey.value, 'SECRETS_ENCRYPTION_KEY');
  if (settings.secretsKey.secretArn !== undefined) {
    return parseSecretsKey(await readSecret(settings.secretsKey.secretArn), 'SECRETS_ENCRYPTION_KEY_SECRET_ARN');
  }
  return keyFile(settings.dataDir);
}

const cache = new Map<string, Promise<Buffer>>();

function sourceOf(settings: Pick<Config, 'secretsKey' | 'dataDir'>): string {
  if (settings.secretsKey.value !== undefined) return `value:${settings.secretsKey.value}`;
  if (settings.secretsKey.secretArn !== undefined) return `secret:${settings.secretsKey.secretArn}`;
  return `file:${path.resolve(settings.dataDir)}`;
}

/** The key for this configuration; a failed load is not cached, so the next request tries again. */
export function loadSecretsKey(settings: Pick<Config, 'secretsKey' | 'dataDir'>): Promise<Buffer> {
  const source = sourceOf(settings);
  let pending = cache.get(source);
  if (pending === undefined) {
    pending = loadFrom(settings).catch((error: unknown) => {
      cache.delete(source);
      throw error;
    });
    cache.set(source, pending);
  }
  return pending;
}
