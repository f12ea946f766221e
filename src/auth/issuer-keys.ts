import { createLocalJWKSet, errors, type JWTVerifyGetKey } from 'jose';
import * as oauth from 'oauth4webapi';
import { isLoopbackHost } from '../oauth-issuers.js';

/** Unknown keys and failed fetches wait at least this long before the issuer is asked again. */
export const KEY_REFETCH_INTERVAL_MS = 60_000;
/** A key set older than this is refreshed in the background after a verification (never waited on). */
export const KEY_MAX_AGE_MS = 10 * 60_000;
/** How long the discovery document or the key set may take to arrive. */
const FETCH_TIMEOUT_MS = 5000;

/** Why an issuer's keys cannot be had now (discovery or key set unreachable, or malformed). */
export class IssuerUnavailableError extends Error {}

export interface IssuerKeyOptions {
  /** The clock, in ms (tests move it). */
  now?: () => number;
}

/**
 * The signing keys of one issuer: its discovery document (OpenID Connect's, else RFC 8414's, read
 * and checked by oauth4webapi) names its `jwks_uri`; the key set is kept, and a token is matched
 * to a key by jose's local key set. The issuer is asked again only when a token names a key the
 * set lacks, or a fetch failed, and then at most once a KEY_REFETCH_INTERVAL_MS, however many
 * tokens arrive (a flood of unknown `kid`s costs one fetch a minute). A set older than
 * KEY_MAX_AGE_MS is refreshed behind a verification, so keys the issuer retired stop working
 * without any request waiting on the issuer.
 */
export class IssuerKeys {
  private keys: { getKey: JWTVerifyGetKey; fetchedAt: number } | null = null;
  private jwksUri: URL | null = null;
  private lastAttempt = -Infinity;
  private pending: Promise<void> | null = null;
  private readonly now: () => number;
  private readonly insecure: boolean;
  /** Fetches made (discovery and key set), for the tests and the log. */
  fetches = 0;

  constructor(
    readonly issuer: string,
    options: IssuerKeyOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    // http is allowed only for a loopback issuer (config checks it); oauth4webapi asks to be told.
    this.insecure =
      new URL(issuer).protocol === 'http:' && isLoopbackHost(new URL(issuer).hostname);
  }

  /** The key for a token's header, as jose's jwtVerify asks for it. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (!this.keys) await this.refetch();
    const keys = this.keys;
    if (!keys) throw new IssuerUnavailableError('no keys');
    try {
      const key = await keys.getKey(header, token);
      if (this.now() - keys.fetchedAt > KEY_MAX_AGE_MS) void this.refetch().catch(() => {});
      return key;
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      await this.refetch();
      const fresh: IssuerKeys['keys'] = this.keys;
      if (fresh === null || fresh === keys) throw error;
      return fresh.getKey(header, token);
    }
  };

  /** Fetches discovery (once it succeeded, only the key set) unless a fetch was tried recently. */
  private refetch(): Promise<void> {
    if (this.pending) return this.pending;
    if (this.now() - this.lastAttempt < KEY_REFETCH_INTERVAL_MS) return Promise.resolve();
    this.lastAttempt = this.now();
    this.pending = this.fetchKeys()
      .catch((error: unknown) => {
        throw new IssuerUnavailableError((error as Error).message);
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  private async fetchKeys(): Promise<void> {
    const jwksUri = this.jwksUri ?? (await this.discover());
    this.fetches++;
    const response = await fetch(jwksUri, {
      headers: { accept: 'application/jwk-set+json, application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (response.status !== 200) throw new Error(`key set answered ${response.status}`);
    const jwks = (await response.json()) as Parameters<typeof createLocalJWKSet>[0];
    // createLocalJWKSet checks the set's shape and throws on a malformed one.
    this.keys = { getKey: createLocalJWKSet(jwks), fetchedAt: this.now() };
  }

  /** The issuer's `jwks_uri`, from its OpenID Connect discovery document, else its RFC 8414 one. */
  private async discover(): Promise<URL> {
    const issuer = new URL(this.issuer);
    const options = {
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      [oauth.allowInsecureRequests]: this.insecure,
    };
    let metadata: oauth.AuthorizationServer;
    try {
      this.fetches++;
      metadata = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oidc' }),
      );
    } catch {
      this.fetches++;
      metadata = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, {
          ...options,
          signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
          algorithm: 'oauth2',
        }),
      );
    }
    if (typeof metadata.jwks_uri !== 'string') throw new Error('discovery names no jwks_uri');
    const jwksUri = new URL(metadata.jwks_uri);
    const secure =
      jwksUri.protocol === 'https:' || (this.insecure && isLoopbackHost(jwksUri.hostname));
    if (!secure) throw new Error('jwks_uri must be https');
    this.jwksUri = jwksUri;
    return jwksUri;
  }
}
