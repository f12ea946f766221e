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
import { EndedTokenError, looksLikeOwnToken, type OwnTokens } from './own-tokens.js';
import type { Principal } from './principal.js';
import { hashToken, TOKEN_PATTERN } from './tokens.js';

/**
 * 401: the transport adds its WWW-Authenticate challenge (HTTP points it at the resource
 * metadata); `reason` goes to the log at debug level only (an identity provider's administrator
 * reads why a token was refused; the caller learns nothing from it).
 */
const unauthorized = (reason: string) => new ApiError('unauthorized', {}, undefined, reason);

/** What checks the tokens that are not access keys. */
export interface TokenCheckers {
  /** OAuth access tokens (JWTs) of the configured external issuers. */
  accessTokens?: AccessTokenVerifier;
  /** The built-in authorization server's own (opaque) access tokens. */
  ownTokens?: OwnTokens;
}

/**
 * Resolves an `Authorization` header to a principal and its workspace, or throws 401 for a
 * missing, malformed, unknown, revoked or expired token, or one whose workspace is gone. The
 * header carries an access key (`vmsr_…`, looked up by its hash), an access token of the built-in
 * server (opaque, looked up in its records), or an external issuer's JWT (checked by
 * `accessTokens` and mapped by grants.ts).
 */
export async function authenticate(
  store: TokenReads,
  authorization: string | undefined,
  now: Date,
  checkers: TokenCheckers = {},
): Promise<Principal> {
  if (authorization === undefined) throw unauthorized('no Authorization header');
  const match = /^Bearer ([^\s]+)$/i.exec(authorization);
  if (!match) throw unauthorized('the Authorization header is not one Bearer token');
  const token = match[1];
  if (TOKEN_PATTERN.test(token)) return accessKeyPrincipal(store, token, now);
  const { accessTokens, ownTokens } = checkers;
  try {
    if (ownTokens && looksLikeOwnToken(token)) return await ownTokens.principal(store, token, now);
    if (accessTokens && looksLikeJwt(token))
      return await principalOfGrant(store, await accessTokens.verify(token));
  } catch (error) {
    if (
      error instanceof InvalidAccessTokenError ||
      error instanceof IssuerUnavailableError ||
      error instanceof EndedTokenError
    )
      throw unauthorized(error.message);
    throw error;
  }
  throw unauthorized('not an access key, nor a token of an accepted issuer');
}

async function accessKeyPrincipal(store: TokenReads, token: string, now: Date): Promise<Principal> {
  const row = await store.findTokenByHash(hashToken(token));
  if (!row) throw unauthorized('unknown access key');
  if (row.revokedAt !== null) throw unauthorized('revoked access key');
  if (row.expiresAt !== null && Date.parse(row.expiresAt) <= now.getTime())
    throw unauthorized('expired access key');
  const principal = await principalOfKey(store, row);
  if (!principal) throw unauthorized("the access key's workspace or role is gone");
  return principal;
}
