// The Ed25519 key that signs tokens. Taken from JWT_PRIVATE_KEY, else from the Secrets Manager
// secret named by JWT_SIGNING_KEY_SECRET_ARN (deployed), else from a file under DATA_DIR that is
// generated on first use (local).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Config } from '#shared/config.ts';
import { readSecret } from '#shared/secrets/secret-store.ts';

export const SIGNING_ALGORITHM = 'EdDSA';

export interface SigningKeys {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

/** A fresh private key as a JWK, for a new signing key file or secret. */
export async function generatePrivateJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { crv: 'Ed25519', extractable: true });
  return exportJWK(privateKey);
}

export async function signingKeysFromJwk(privateJwk: JWK): Promise<SigningKeys> {
  if (privateJwk.kty !== 'OKP' || privateJwk.crv !== 'Ed25519' || typeof privateJwk.d !== 'string') {
    throw new Error('The signing key must be an Ed25519 private key in JWK form');
  }
  const { d: _private, ...publicPart } = privateJwk;
  const kid = await calculateJwkThumbprint(publicPart);
  const publicJwk: JWK = { ...publicPart, kid, alg: SIGNING_ALGORITHM, use: 'sig' };
  return {
    kid,
    privateKey: (await importJWK(privateJwk, SIGNING_ALGORITHM)) as CryptoKey,
    publicKey: (await importJWK(publicPart, SIGNING_ALGORITHM)) as CryptoKey,
    publicJwk,
  };
}

async function keyFileJwk(dataDir: string): Promise<JWK> {
  const file = path.join(dataDir, 'signing-key.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as JWK;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const jwk = await generatePrivateJwk();
  await mkdir(dataDir, { recursive: true });
  // 'wx' fails if another process created the file meanwhile; then read theirs.
  try {
    await writeFile(file, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' });
    return jwk;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return JSON.parse(await readFile(file, 'utf8')) as JWK;
  }
}

export async function loadSigningKeys(config: Config): Promise<SigningKeys> {
  if (config.tokens.privateKeyJwk !== undefined) {
    return signingKeysFromJwk(JSON.parse(config.tokens.privateKeyJwk) as JWK);
  }
  if (config.tokens.signingKeySecretArn !== undefined) {
    return signingKeysFromJwk(JSON.parse(await readSecret(config.tokens.signingKeySecretArn)) as JWK);
  }
  return signingKeysFromJwk(await keyFileJwk(config.dataDir));
}
