import {
  decodeJwt,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyResult,
} from 'jose';
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

/** How one issuer's tokens are checked: its configuration and where its keys come from. */
interface KnownIssuer {
  config: OAuthIssuer;
  getKey: JWTVerifyGetKey;
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
  private readonly issuers: Map<string, KnownIssuer>;
  private readonly keys = new Map<string, IssuerKeys>();
  private readonly verified = new LRUCache<string, VerifiedAccessToken>({ max: MAX_VERIFIED });
  private readonly now: () => number;

  constructor(
    issuers: readonly OAuthIssuer[],
    /** This server's resource identifiers: a token's `aud` must contain one. */
    private readonly audiences: () => readonly string[],
    options: IssuerKeyOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.issuers = new Map(
      issuers.map((config) => {
        const keys = new IssuerKeys(config.issuer, options);
        this.keys.set(config.issuer, keys);
        return [config.issuer, { config, getKey: keys.getKey }];
      }),
    );
  }

  /** The keys of each external issuer (the tests count their fetches). */
  keysOf(issuer: string): IssuerKeys | undefined {
    return this.keys.get(issuer);
  }

  async verify(token: string): Promise<VerifiedAccessToken> {
    const kept = this.verified.get(token);
    if (kept && kept.claims.exp * 1000 > this.now()) return kept;
    const issuer = this.issuerOf(token);
    let verified: JWTVerifyResult;
    try {
      verified = await jwtVerify(token, issuer.getKey, {
        algorithms: [...ACCEPTED_ALGORITHMS],
        issuer: issuer.config.issuer,
        audience: [...this.audiences()],
        clockTolerance: CLOCK_SKEW_S,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(this.now()),
      });
    } catch (error) {
      throw new InvalidAccessTokenError(refusalOf(error, token, this.audiences()));
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
    const result = { issuer: issuer.config, claims: claims as VerifiedAccessToken['claims'] };
    this.verified.set(token, result);
    return result;
  }

  /** The known issuer a token claims (read before verifying, to pick the keys). */
  private issuerOf(token: string): KnownIssuer {
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      throw new InvalidAccessTokenError('not a JWT');
    }
    if (typeof iss !== 'string') throw new InvalidAccessTokenError('no iss');
    const issuer = this.issuers.get(iss);
    if (!issuer)
      throw new InvalidAccessTokenError(
        `iss ${JSON.stringify(iss)} is not a configured issuer (VMS_READ_OAUTH_ISSUERS)`,
      );
    return issuer;
  }
}

/**
 * Why jose refused a token, for an identity provider's administrator (logged at debug level,
 * DESIGN §4.16): jose's reason, and for a wrong audience the audience the token names beside the
 * ones this server accepts (a trailing slash, `localhost` for `127.0.0.1`). Claims, never the token.
 */
function refusalOf(error: unknown, token: string, audiences: readonly string[]): string {
  const reason = (error as Error).message;
  const code = (error as { code?: string }).code;
  if (code !== 'ERR_JWT_CLAIM_VALIDATION_FAILED' || (error as { claim?: string }).claim !== 'aud')
    return reason;
  let aud: unknown;
  try {
    aud = decodeJwt(token).aud;
  } catch {
    aud = undefined;
  }
  return `${reason}: the token's aud is ${JSON.stringify(aud)}, this server accepts ${JSON.stringify(audiences)}`;
}
