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

/** A signed, short-lived statement for one purpose other than signing in (a document-access ticket). */
export interface TicketClaims {
  subject: string;
  tokenId: string;
  expiresAt: Date;
  claims: Record<string, unknown>;
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
  private readonly verifiedTokens = new Map<string, TokenClaims>();

  constructor(
    private readonly keys: SigningKeys,
    private readonly settings: TokenSettings,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Signs `payload` for `subject`, valid for `ttlSeconds` from now, with a fresh `jti`. */
  private async sign(payload: JWTPayload, subject: string, ttlSeconds: number): Promise<{ token: string; tokenId: string; issuedAt: Date; expiresAt: Date }> {
    const issuedAtSeconds = Math.floor(this.now().getTime() / 1000);
    const tokenId = randomUUID();
    const token = await new SignJWT(payload)
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: this.keys.kid, typ: 'JWT' })
      .setSubject(subject)
      .setIssuer(this.settings.issuer)
      .setJti(tokenId)
      .setIssuedAt(issuedAtSeconds)
      .setExpirationTime(issuedAtSeconds + ttlSeconds)
      .sign(this.keys.privateKey);
    return { token, tokenId, issuedAt: new Date(issuedAtSeconds * 1000), expiresAt: new Date((issuedAtSeconds + ttlSeconds) * 1000) };
  }

  /** The payload of a token whose signature, algorithm, issuer and lifetime hold; else INVALID_TOKEN. */
  private async verified(token: string, what: string): Promise<PlatformPayload> {
    try {
      const { payload } = await jwtVerify<PlatformPayload>(token, this.keys.publicKey, {
        algorithms: [SIGNING_ALGORITHM],
        issuer: this.settings.issuer,
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
        currentDate: this.now(),
      });
      return payload;
    } catch (error) {
      throw new InvalidTokenError(`${what} is invalid or expired`, { cause: error });
    }
  }

  private async issue(subject: string, username: string, type: TokenType): Promise<IssuedToken> {
    const ttl = type === 'access' ? this.settings.accessTtlSeconds : this.settings.refreshTtlSeconds;
    const { token, tokenId, issuedAt, expiresAt } = await this.sign({ token_type: type, username }, subject, ttl);
    return { token, claims: { subject, tokenId, type, issuedAt, expiresAt } };
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
    const known = this.verifiedTokens.get(token);
    if (known !== undefined && known.expiresAt.getTime() > this.now().getTime()) return checkedType(known, expectedType);
    const claims = await this.verifiedClaims(token);
    if (this.verifiedTokens.size >= VERIFIED_LIMIT) this.verifiedTokens.clear();
    this.verifiedTokens.set(token, claims);
    return checkedType(claims, expectedType);
  }

  private async verifiedClaims(token: string): Promise<TokenClaims> {
    const payload = await this.verified(token, 'Token');
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

  /**
   * Signs a ticket for `purpose`. Its `token_type` is the purpose, so it is never accepted as an
   * access or refresh token, and a ticket of one purpose never passes for another.
   */
  async issueTicket(purpose: string, subject: string, claims: Record<string, unknown>, ttlSeconds: number): Promise<{ token: string; claims: TicketClaims }> {
    const { token, tokenId, expiresAt } = await this.sign({ ...claims, token_type: purpose }, subject, ttlSeconds);
    return { token, claims: { subject, tokenId, expiresAt, claims } };
  }

  /** Checks a ticket like a token (signature, algorithm, issuer, lifetime) and that it is for `purpose`. */
  async verifyTicket(token: string, purpose: string): Promise<TicketClaims> {
    const payload = await this.verified(token, 'Ticket');
    if (payload.token_type !== purpose) throw new InvalidTokenError('Ticket is not for this purpose');
    const { token_type: _type, sub, jti, exp, iat: _iat, iss: _iss, ...claims } = payload;
    return { subject: sub!, tokenId: jti!, expiresAt: new Date(exp! * 1000), claims };
  }

  /** The public key set served at /.well-known/jwks.json. */
  jwks(): { keys: Array<Record<string, unknown>> } {
    return { keys: [{ ...this.keys.publicJwk }] };
  }
}
