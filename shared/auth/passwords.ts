// Password hashing with scrypt, a memory-hard KDF from node:crypto. The stored form carries its own
// cost parameters, so raising the cost later keeps old hashes verifiable.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { concurrencyLimit } from '#shared/concurrency-limit.ts';

const KEY_LENGTH = 64;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;

/**
 * scrypt runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which
 * every file read, write and fsync of the object store shares. A burst of sign-ins in one process
 * (the dev server) must not take every thread and leave uploads and downloads waiting behind it, so
 * at most half the pool derives keys at once; further sign-ins wait their turn here instead.
 */
const hashing = concurrencyLimit(Math.max(1, Math.floor(Number(process.env.UV_THREADPOOL_SIZE || 4) / 2)));

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return hashing.run(
    () =>
      new Promise((resolve, reject) => {
        scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => {
          if (error) reject(error);
          else resolve(key);
        });
      }),
  );
}

function memoryFor(cost: number, blockSize: number): number {
  return 128 * cost * blockSize * 2;
}

/** `scrypt$N$r$p$salt$hash`, salt and hash base64url. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, {
    N: cost,
    r: BLOCK_SIZE,
    p: PARALLELISM,
    maxmem: memoryFor(cost, BLOCK_SIZE),
  });
  return ['scrypt', cost, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const cost = Number(n);
  const blockSize = Number(r);
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), {
    N: cost,
    r: blockSize,
    p: Number(p),
    maxmem: memoryFor(cost, blockSize),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A real hash to verify against when the username is unknown, so a miss costs as much time as a
 * wrong password and does not reveal which usernames exist.
 */
let decoyHash: Promise<string> | undefined;
export function passwordDecoy(cost: number): Promise<string> {
  decoyHash ??= hashPassword(randomBytes(12).toString('hex'), cost);
  return decoyHash;
}
