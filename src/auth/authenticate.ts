import { ApiError } from '../errors.js';
import type { TokenReads } from '../store/store.js';
import {
  InvalidAccessTokenError,
  looksLikeJwt,
  type AccessTokenVerifier,
} from './access-tokens.js';
import { IssuerUnavailableError } from './issuer-keys.js';
import { principalOfGrant } from './grants.js';
import { principalOfKey } from './key-principal.js';
import type { Principal } from './principal.js';
import { hashToken, TOKEN_PATTERN } from './tokens.js';

// The transport adds its WWW-Authenticate challenge (HTTP points it at the resource metadata).
const UNAUTHORIZED = () => new ApiError('unauthorized');

/**
 * Resolves an `Authorization` header to a principal and its workspace, or throws 401 for a
 * missing, malformed, unknown, revoked or expired token, or one whose workspace is gone. The
 * header carries an access key (`vmsr_…`, looked up by its hash) or, when issuers are configured,
 * an OAuth access token (a JWT, checked by `accessTokens` and mapped by grants.ts).
 */
export async function authenticate(
  store: TokenReads,
  authorization: string | undefined,
  now: Date,
  accessTokens?: AccessTokenVerifier,
): Promise<Principal> {
  const match = /^Bearer ([^\s]+)$/i.exec(authorization ?? '');
  if (!match) throw UNAUTHORIZED();
  const token = match[1];
  if (TOKEN_PATTERN.test(token)) return accessKeyPrincipal(store, token, now);
  if (!accessTokens || !looksLikeJwt(token)) throw UNAUTHORIZED();
  try {
    return await principalOfGrant(store, await accessTokens.verify(token), now);
  } catch (error) {
    if (error instanceof InvalidAccessTokenError || error instanceof IssuerUnavailableError)
      throw UNAUTHORIZED();
    throw error;
  }
}

async function accessKeyPrincipal(store: TokenReads, token: string, now: Date): Promise<Principal> {
  const row = await store.findTokenByHash(hashToken(token));
  if (!row || row.revokedAt !== null) throw UNAUTHORIZED();
  if (row.expiresAt !== null && Date.parse(row.expiresAt) <= now.getTime()) throw UNAUTHORIZED();
  const principal = await principalOfKey(store, row);
  if (!principal) throw UNAUTHORIZED();
  return principal;
}
