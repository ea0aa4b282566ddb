// Issues and verifies the platform's JWTs. The algorithm is pinned on verify, `exp`, `iat`, `jti`
// and the token type are required, and a refresh token is never accepted where an access token is.
import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, type JWTPayload } from 'jose';
import { InvalidTokenError } from '#shared/errors.ts';
import { SIGNING_ALGORITHM, type SigningKeys } from './signing-keys.ts';

export type TokenType = 'access' | 'refresh';

export interface TokenSettings {
  issuer: string;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
}

export interface TokenClaims {
  /** The user's UUID. */
  subject: string;
  tokenId: string;
  type: TokenType;
  issuedAt: Date;
  expiresAt: Date;
}

export interface IssuedToken {
  token: string;
  claims: TokenClaims;
}

export interface TokenPair {
  access: IssuedToken;
  refresh: IssuedToken;
}

function checkedType(claims: TokenClaims, expectedType: TokenType | undefined): TokenClaims {
  if (expectedType !== undefined && claims.type !== expectedType) {
    throw new InvalidTokenError(`Token has wrong type: expected an ${expectedType} token`);
  }
  return claims;
}

interface PlatformPayload extends JWTPayload {
  token_type?: unknown;
}

/**
 * Tokens whose signature this process has checked, with their claims. An Ed25519 verification costs
 * more than the rest of a small request; its outcome for a given token string never changes, so it
 * is done once per token. Everything that can change (expiry, here; revocation, the user's state, in
 * the database on every request) is still checked each time. Bounded: when full it starts over.
 */
const VERIFIED_LIMIT = 10_000;

export class TokenIssuer {
  private readonly verified = new Map<string, TokenClaims>();

  constructor(
    private readonly keys: SigningKeys,
    private readonly settings: TokenSettings,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private async issue(subject: string, username: string, type: TokenType): Promise<IssuedToken> {
    const issuedAtSeconds = Math.floor(this.now().getTime() / 1000);
    const ttl = type === 'access' ? this.settings.accessTtlSeconds : this.settings.refreshTtlSeconds;
    const tokenId = randomUUID();
    const token = await new SignJWT({ token_type: type, username })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: this.keys.kid, typ: 'JWT' })
      .setSubject(subject)
      .setIssuer(this.settings.issuer)
      .setJti(tokenId)
      .setIssuedAt(issuedAtSeconds)
      .setExpirationTime(issuedAtSeconds + ttl)
      .sign(this.keys.privateKey);
    return {
      token,
      claims: {
        subject,
        tokenId,
        type,
        issuedAt: new Date(issuedAtSeconds * 1000),
        expiresAt: new Date((issuedAtSeconds + ttl) * 1000),
      },
    };
  }

  async issuePair(user: { uuid: string; username: string }): Promise<TokenPair> {
    return {
      access: await this.issue(user.uuid, user.username, 'access'),
      refresh: await this.issue(user.uuid, user.username, 'refresh'),
    };
  }

  /**
   * Checks signature, algorithm, issuer, lifetime and type (any type when `expectedType` is
   * omitted); any failure is INVALID_TOKEN.
   */
  async verify(token: string, expectedType?: TokenType): Promise<TokenClaims> {
    const known = this.verified.get(token);
    if (known !== undefined && known.expiresAt.getTime() > this.now().getTime()) return checkedType(known, expectedType);
    const claims = await this.verifySignature(token);
    if (this.verified.size >= VERIFIED_LIMIT) this.verified.clear();
    this.verified.set(token, claims);
    return checkedType(claims, expectedType);
  }

  private async verifySignature(token: string): Promise<TokenClaims> {
    let payload: PlatformPayload;
    try {
      ({ payload } = await jwtVerify<PlatformPayload>(token, this.keys.publicKey, {
        algorithms: [SIGNING_ALGORITHM],
        issuer: this.settings.issuer,
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
        currentDate: this.now(),
      }));
    } catch (error) {
      throw new InvalidTokenError('Token is invalid or expired', { cause: error });
    }
    const type = payload.token_type;
    if (type !== 'access' && type !== 'refresh') throw new InvalidTokenError('Token has no valid type');
    return {
      subject: payload.sub!,
      tokenId: payload.jti!,
      type,
      issuedAt: new Date(payload.iat! * 1000),
      expiresAt: new Date(payload.exp! * 1000),
    };
  }

  /** The public key set served at /.well-known/jwks.json. */
  jwks(): { keys: Array<Record<string, unknown>> } {
    return { keys: [{ ...this.keys.publicJwk }] };
  }
}
