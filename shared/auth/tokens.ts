// Issues and verifies the platform's JWTs. The algorithm is pinned on verify, `exp`, `iat`, `jti`
// and the token type are required, and a refresh token is never accepted where an access token is.
// Tokens carry the issuing instant in milliseconds (`iat_ms`, beside the whole-second `iat` that
// JWT consumers expect), so a revocation cut-off in the same second as a sign-in still tells
// them apart, and a family id (`fam`) shared by every token descended from one sign-in.
import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, type JWTPayload } from 'jose';
import { InvalidTokenError } from '#shared/errors.ts';
import { SIGNING_ALGORITHM, type SigningKeys } from './signing-keys.ts';
import { BoundedMap } from '#shared/bounded-map.ts';

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
  /** To the millisecond (`iat_ms`); tokens without it count from the start of their `iat` second. */
  issuedAt: Date;
  expiresAt: Date;
  /** The sign-in this token descends from; rotation keeps it, reuse of a rotated token revokes it. */
  familyId?: string;
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
  iat_ms?: unknown;
  fam?: unknown;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `iat_ms` when it is an integer inside the `iat` second, else the start of that second. */
function issuedAtOf(payload: PlatformPayload): Date {
  const seconds = payload.iat!;
  const ms = payload.iat_ms;
  if (typeof ms === 'number' && Number.isSafeInteger(ms) && Math.floor(ms / 1000) === seconds) return new Date(ms);
  return new Date(seconds * 1000);
}

/**
 * Tokens whose signature this process has checked, with their claims. An Ed25519 verification costs
 * more than the rest of a small request; its outcome for a given token string never changes, so it
 * is done once per token. Everything that can change (expiry, here; revocation, the user's state, in
 * the database on every request) is still checked each time. Bounded: when full it starts over.
 */
const VERIFIED_LIMIT = 10_000;

export class TokenIssuer {
  private readonly verifiedTokens = new BoundedMap<string, TokenClaims>(VERIFIED_LIMIT);

  constructor(
    private readonly keys: SigningKeys,
    private readonly settings: TokenSettings,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Signs `payload` for `subject`, valid for `ttlSeconds` from now, with a fresh `jti`. */
  private async sign(
    payload: JWTPayload,
    subject: string,
    ttlSeconds: number,
  ): Promise<{ token: string; tokenId: string; issuedAt: Date; expiresAt: Date }> {
    const issuedAtMs = this.now().getTime();
    const issuedAtSeconds = Math.floor(issuedAtMs / 1000);
    const tokenId = randomUUID();
    const token = await new SignJWT({ ...payload, iat_ms: issuedAtMs })
      .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: this.keys.kid, typ: 'JWT' })
      .setSubject(subject)
      .setIssuer(this.settings.issuer)
      .setJti(tokenId)
      .setIssuedAt(issuedAtSeconds)
      .setExpirationTime(issuedAtSeconds + ttlSeconds)
      .sign(this.keys.privateKey);
    return { token, tokenId, issuedAt: new Date(issuedAtMs), expiresAt: new Date((issuedAtSeconds + ttlSeconds) * 1000) };
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

  private async issue(subject: string, username: string, type: TokenType, familyId: string): Promise<IssuedToken> {
    const ttl = type === 'access' ? this.settings.accessTtlSeconds : this.settings.refreshTtlSeconds;
    const { token, tokenId, issuedAt, expiresAt } = await this.sign({ token_type: type, username, fam: familyId }, subject, ttl);
    return { token, claims: { subject, tokenId, type, issuedAt, expiresAt, familyId } };
  }

  /** A fresh pair: of a new family (a sign-in), or of `familyId` when a refresh rotates it. */
  async issuePair(user: { uuid: string; username: string }, familyId: string = randomUUID()): Promise<TokenPair> {
    return {
      access: await this.issue(user.uuid, user.username, 'access', familyId),
      refresh: await this.issue(user.uuid, user.username, 'refresh', familyId),
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
    this.verifiedTokens.set(token, claims);
    return checkedType(claims, expectedType);
  }

  private async verifiedClaims(token: string): Promise<TokenClaims> {
    const payload = await this.verified(token, 'Token');
    const type = payload.token_type;
    if (type !== 'access' && type !== 'refresh') throw new InvalidTokenError('Token has no valid type');
    // Our own signature vouches for `fam`, but it reaches SQL as a uuid: anything else is no family.
    const familyId = typeof payload.fam === 'string' && UUID_PATTERN.test(payload.fam) ? payload.fam : undefined;
    return {
      subject: payload.sub!,
      tokenId: payload.jti!,
      type,
      issuedAt: issuedAtOf(payload),
      expiresAt: new Date(payload.exp! * 1000),
      ...(familyId === undefined ? {} : { familyId }),
    };
  }

  /**
   * Signs a ticket for `purpose`. Its `token_type` is the purpose, so it is never accepted as an
   * access or refresh token, and a ticket of one purpose never passes for another.
   */
  async issueTicket(
    purpose: string,
    subject: string,
    claims: Record<string, unknown>,
    ttlSeconds: number,
  ): Promise<{ token: string; claims: TicketClaims }> {
    const { token, tokenId, expiresAt } = await this.sign({ ...claims, token_type: purpose }, subject, ttlSeconds);
    return { token, claims: { subject, tokenId, expiresAt, claims } };
  }

  /** Checks a ticket like a token (signature, algorithm, issuer, lifetime) and that it is for `purpose`. */
  async verifyTicket(token: string, purpose: string): Promise<TicketClaims> {
    const payload = await this.verified(token, 'Ticket');
    if (payload.token_type !== purpose) throw new InvalidTokenError('Ticket is not for this purpose');
    const { token_type: _type, sub, jti, exp, iat: _iat, iat_ms: _iatMs, iss: _iss, ...claims } = payload;
    return { subject: sub!, tokenId: jti!, expiresAt: new Date(exp! * 1000), claims };
  }

  /** The public key set served at /.well-known/jwks.json. */
  jwks(): { keys: Array<Record<string, unknown>> } {
    return { keys: [{ ...this.keys.publicJwk }] };
  }
}
