import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { open, seal, SecretDecryptionError, SecretKeyError } from '#shared/crypto/secret-box.ts';
import { loadSecretsKey, parseSecretsKey } from '#shared/crypto/secrets-key.ts';

describe('secret box (AES-256-GCM)', () => {
  const key = randomBytes(32);

  it('opens what it sealed, for any text', () => {
    for (const plaintext of ['', 'hello', JSON.stringify({ nested: ['ünïcødé', 1, null] }), 'x'.repeat(70_000)]) {
      const sealed = seal(key, plaintext, 'site_a:site:KEY');
      expect(open(key, sealed, 'site_a:site:KEY')).toBe(plaintext);
    }
  });

  it('draws a fresh 12-byte IV for every seal and keeps a 16-byte tag', () => {
    const first = seal(key, 'same', 'ad');
    const second = seal(key, 'same', 'ad');

    expect(Buffer.from(first.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(first.tag, 'base64')).toHaveLength(16);
    expect(first.iv).not.toBe(second.iv);
    expect(first.ciphertext).not.toBe(second.ciphertext);
    expect(first.ciphertext).not.toContain(Buffer.from('same').toString('base64'));
  });

  it('detects a changed ciphertext, tag or IV', () => {
    const sealed = seal(key, 'a secret worth keeping', 'ad');
    const flip = (text: string) => {
      const bytes = Buffer.from(text, 'base64');
      bytes[0] = bytes[0]! ^ 0x01;
      return bytes.toString('base64');
    };

    expect(() => open(key, { ...sealed, ciphertext: flip(sealed.ciphertext) }, 'ad')).toThrow(SecretDecryptionError);
    expect(() => open(key, { ...sealed, tag: flip(sealed.tag) }, 'ad')).toThrow(SecretDecryptionError);
    expect(() => open(key, { ...sealed, iv: flip(sealed.iv) }, 'ad')).toThrow(SecretDecryptionError);
    expect(() => open(key, { ...sealed, tag: '' }, 'ad')).toThrow(SecretDecryptionError);
  });

  it('refuses to open with a wrong key', () => {
    const sealed = seal(key, 'value', 'ad');

    expect(() => open(randomBytes(32), sealed, 'ad')).toThrow(SecretDecryptionError);
  });

  it('refuses to open a value moved to another record (different associated data)', () => {
    const sealed = seal(key, 'value', 'site_a:site:DB_URL');

    expect(() => open(key, sealed, 'site_b:site:DB_URL')).toThrow(SecretDecryptionError);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => seal(randomBytes(16), 'value', 'ad')).toThrow(SecretKeyError);
  });
});

describe('secrets key loading', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'tessera-key-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('takes the configured value', async () => {
    const value = randomBytes(32).toString('base64');

    const key = await loadSecretsKey({ secretsKey: { value }, dataDir });

    expect(key.equals(Buffer.from(value, 'base64'))).toBe(true);
  });

  it('refuses a configured value that is not 32 bytes of base64', () => {
    expect(() => parseSecretsKey(randomBytes(31).toString('base64'), 'test')).toThrow(SecretKeyError);
    expect(() => parseSecretsKey('not base64 at all!', 'test')).toThrow(SecretKeyError);
  });

  it('generates DATA_DIR/secrets-key once, readable only by its owner, and reuses it', async () => {
    const first = await loadSecretsKey({ secretsKey: {}, dataDir });

    const file = path.join(dataDir, 'secrets-key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(Buffer.from(await readFile(file, 'utf8'), 'base64').equals(first)).toBe(true);
    expect((await loadSecretsKey({ secretsKey: {}, dataDir })).equals(first)).toBe(true);
  });

  it('reads a key file another process wrote', async () => {
    const otherDir = await mkdtemp(path.join(tmpdir(), 'tessera-key-'));
    const value = randomBytes(32);
    await writeFile(path.join(otherDir, 'secrets-key'), value.toString('base64'));

    const key = await loadSecretsKey({ secretsKey: {}, dataDir: otherDir });

    expect(key.equals(value)).toBe(true);
    await rm(otherDir, { recursive: true, force: true });
  });
});
