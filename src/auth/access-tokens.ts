import { decodeJwt, jwtVerify, type JWTPayload, type JWTVerifyResult } from 'jose';
import { LRUCache } from 'lru-cache';
import type { OAuthIssuer } from '../oauth-issuers.js';
import { IssuerKeys, type IssuerKeyOptions } from './issuer-keys.js';

/** DESIGN §4.12: asymmetric signatures only; never `none`, never HMAC. */
export const ACCEPTED_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;
/** Clock skew allowed on `exp`, `nbf` and `iat`, in seconds. */
export const CLOCK_SKEW_S = 60;
/**
 * `typ` as identity providers write it (RFC 9068's, or plain JWT), compared case-insensitively;
 * some write none (Okta's access tokens carry only `kid` and `alg`). Any other type (a DPoP
 * proof, a logout token, a security event) is not an access token.
 */
const ACCEPTED_TYPES = new Set(['at+jwt', 'application/at+jwt', 'jwt']);
/** Verified tokens kept (each until its `exp`), so a signature is checked once per token. */
const MAX_VERIFIED = 10_000;
/** A JWS in compact form: three base64url parts. Anything else is no JWT (and no access key). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** A token that is not accepted: the reason goes to the log at debug level, never to the caller. */
export class InvalidAccessTokenError extends Error {}

/** A verified access token: its issuer's configuration and its claims. */
export interface VerifiedAccessToken {
  issuer: OAuthIssuer;
  claims: JWTPayload & { sub: string; exp: number };
}

export function looksLikeJwt(token: string): boolean {
  return COMPACT_JWS.test(token);
}

/**
 * Checks JWT access tokens of the configured issuers (RFC 9068 as DESIGN §4.12 reads it) with
 * jose: the issuer is picked by the token's `iss` (an unknown one is refused before any key is
 * looked for), then the signature against that issuer's keys, `alg`, `typ`, `iss`, `aud` (one of
 * this server's resource identifiers), `exp` (required), `nbf` and `iat`, and a `sub`. A token
 * that passed is kept until it expires, so the next request with it costs a map lookup.
 */
export class AccessTokenVerifier {
  private readonly issuers: Map<string, { config: OAuthIssuer; keys: IssuerKeys }>;
  private readonly verified = new LRUCache<string, VerifiedAccessToken>({ max: MAX_VERIFIED });
  private readonly now: () => number;

  constructor(
    issuers: readonly OAuthIssuer[],
    /** This server's resource identifiers: a token's `aud` must contain one. */
    private readonly audiences: () => string[],
    options: IssuerKeyOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.issuers = new Map(
      issuers.map((config) => [
        config.issuer,
        { config, keys: new IssuerKeys(config.issuer, options) },
      ]),
    );
  }

  /** The keys of each issuer (the tests count their fetches). */
  keysOf(issuer: string): IssuerKeys | undefined {
    return this.issuers.get(issuer)?.keys;
  }

  async verify(token: string): Promise<VerifiedAccessToken> {
    const kept = this.verified.get(token);
    if (kept && kept.claims.exp * 1000 > this.now()) return kept;
    const issuer = this.issuerOf(token);
    let verified: JWTVerifyResult;
    try {
      verified = await jwtVerify(token, issuer.keys.getKey, {
        algorithms: [...ACCEPTED_ALGORITHMS],
        issuer: issuer.config.issuer,
        audience: this.audiences(),
        clockTolerance: CLOCK_SKEW_S,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(this.now()),
      });
    } catch (error) {
      throw new InvalidAccessTokenError((error as Error).message);
    }
    const { payload: claims, protectedHeader } = verified;
    const type = protectedHeader.typ;
    if (type !== undefined && !(typeof type === 'string' && ACCEPTED_TYPES.has(type.toLowerCase())))
      throw new InvalidAccessTokenError('typ is not at+jwt or JWT');
    // jose checks iat only against a maximum age; one from the future is refused here.
    if (typeof claims.iat === 'number' && claims.iat > this.now() / 1000 + CLOCK_SKEW_S)
      throw new InvalidAccessTokenError('iat is in the future');
    if (typeof claims.sub !== 'string' || claims.sub === '')
      throw new InvalidAccessTokenError('sub is not a string');
    const result = {
      issuer: issuer.config,
      claims: claims as VerifiedAccessToken['claims'],
    };
    this.verified.set(token, result);
    return result;
  }

  /** The configured issuer a token claims (read before verifying, to pick the keys). */
  private issuerOf(token: string) {
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      throw new InvalidAccessTokenError('not a JWT');
    }
    const issuer = typeof iss === 'string' ? this.issuers.get(iss) : undefined;
    if (!issuer) throw new InvalidAccessTokenError('iss is not a configured issuer');
    return issuer;
  }
}
