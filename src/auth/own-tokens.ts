import type { OAuthRecords } from '../store/sql/oauth-records.js';
import type { TokenReads } from '../store/store.js';
import { grantId } from './grants.js';
import { principalOfKey } from './key-principal.js';
import type { Grant, Principal } from './principal.js';
import { isScope, type Scope } from './scopes.js';
import { liveKey } from './tokens.js';

/** An access token of the built-in server: oidc-provider's opaque value (43 base64url characters). */
const OPAQUE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * How long another instance may keep accepting a token its own instance revoked (DESIGN §4.16:
 * within a second): a principal of the built-in server is read again after this long.
 */
export const OWN_TOKEN_RECHECK_MS = 1000;

/** A token of the built-in server that is not (or no longer) accepted. */
export class EndedTokenError extends Error {}

/** The web page's own client of the built-in server (configured, not registered). */
export const WEB_CLIENT_ID = 'vms-read-web';
export const WEB_CLIENT_NAME = 'vms-read web page';

export const looksLikeOwnToken = (token: string) => OPAQUE_TOKEN.test(token);

/**
 * The access tokens of the built-in authorization server (src/oauth-server/), which are opaque and
 * kept in the store beside its grants (DESIGN §4.16 "Revocation is immediate"): a token is
 * accepted while its record is there, unexpired, for one of this server's resource identifiers,
 * and the access key behind it still works. Revoking the token, or ending its grant (sign-out, a
 * refresh token or code replayed, the grant's refresh token revoked), removes the record: the
 * next request with it is 401. `ended()` is told by this instance's authorization server whenever
 * it removes records, so principals kept for them here are forgotten at once; other instances
 * read again within OWN_TOKEN_RECHECK_MS.
 */
export class OwnTokens {
  /** Bumped at every removal: principals kept under an older epoch are read again. */
  epoch = 0;

  constructor(
    private readonly records: Pick<OAuthRecords, 'findOAuthRecord'>,
    /** The built-in server's issuer (this server's resource identifier). */
    readonly issuer: () => string,
    /** This server's resource identifiers: a token must be for one of them. */
    private readonly audiences: () => readonly string[],
  ) {}

  ended(): void {
    this.epoch++;
  }

  /** A client's registered name (the page's own client's is configured), or null. */
  private async clientName(clientId: string | null, now: Date): Promise<string | null> {
    if (clientId === null) return null;
    if (clientId === WEB_CLIENT_ID) return WEB_CLIENT_NAME;
    const name = (await this.records.findOAuthRecord('Client', clientId, now.getTime()))?.payload
      .client_name;
    return typeof name === 'string' ? name : null;
  }

  /** The principal of a token of this server, or EndedTokenError saying why not. */
  async principal(store: TokenReads, token: string, now: Date): Promise<Principal> {
    const record = await this.records.findOAuthRecord('AccessToken', token, now.getTime());
    const payload = record?.payload;
    if (!payload || record.consumedAt !== null) throw new EndedTokenError('no such token');
    const { accountId, clientId, scope, aud, exp } = payload;
    if (typeof exp === 'number' && exp * 1000 <= now.getTime())
      throw new EndedTokenError('expired');
    if (typeof aud !== 'string' || !this.audiences().includes(aud))
      throw new EndedTokenError('not for this resource');
    if (typeof accountId !== 'string') throw new EndedTokenError('no account');
    const key = await liveKey(store, accountId, now.getTime());
    const keyPrincipal = key ? await principalOfKey(store, key) : null;
    if (!key || !keyPrincipal)
      throw new EndedTokenError('the access key behind it no longer works');
    const grant: Grant = {
      issuer: this.issuer(),
      subject: accountId,
      clientId: typeof clientId === 'string' ? clientId : null,
    };
    const clientName = await this.clientName(grant.clientId, now);
    if (clientName !== null) grant.clientName = clientName;
    const tokenExpiry = typeof exp === 'number' ? exp * 1000 : Infinity;
    const keyExpiry = key.expiresAt ? Date.parse(key.expiresAt) : Infinity;
    const granted = String(scope ?? '')
      .split(' ')
      .filter((word): word is Scope => isScope(word) && keyPrincipal.scopes.has(word));
    return {
      ...keyPrincipal,
      tokenId: grantId(grant),
      grant,
      // The access key is the subject: its grants and its own requests share one budget.
      quotaKey: key.id,
      scopeCeiling: keyPrincipal.scopes,
      expiresAt: new Date(Math.min(tokenExpiry, keyExpiry)).toISOString(),
      scopes: new Set(granted),
    };
  }
}
