// AES-256-GCM sealing of tenant secret values. Every seal draws a fresh 12-byte IV; the 16-byte
// authentication tag is kept beside the ciphertext, so a changed byte, a wrong key or a sealed
// value moved to another record (the associated data differs) fails to open instead of decrypting
// to garbage.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
export const SECRET_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value as stored: three base64 strings. */
export interface SealedValue {
  iv: string;
  tag: string;
  ciphertext: string;
}

export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/** The stored value cannot be opened: tampered with, sealed under another key, or for another record. */
export class SecretDecryptionError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('The secret value cannot be decrypted', options);
    this.name = 'SecretDecryptionError';
  }
}

function assertKey(key: Buffer): void {
  if (key.length !== SECRET_KEY_BYTES) throw new SecretKeyError(`The secrets key must be ${SECRET_KEY_BYTES} bytes`);
}

/** Seals `plaintext`; `associatedData` names what the value belongs to and must be given again to open it. */
export function seal(key: Buffer, plaintext: string, associatedData: string): SealedValue {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64') };
}

export function open(key: Buffer, sealed: SealedValue, associatedData: string): string {
  assertKey(key);
  const iv = Buffer.from(sealed.iv, 'base64');
  const tag = Buffer.from(sealed.tag, 'base64');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretDecryptionError();
  try {
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new SecretDecryptionError({ cause: error });
  }
}
