import { createToken, hashToken, TokenRequestError, type TokenRequest } from '../auth/tokens.js';
import type { Store } from '../store/store.js';
import { AdminError } from './admin-error.js';

/** Mints a token (shown once; only its hash is stored). A request the data refutes is refused. */
export async function mintToken(store: Store, request: TokenRequest, now: Date): Promise<string> {
  try {
    return await createToken(store, request, now);
  } catch (error) {
    if (error instanceof TokenRequestError) throw new AdminError(error.message);
    throw error;
  }
}

/** Revokes a token from then on; refused when the store knows no such token. */
export async function revokeToken(store: Store, token: string, now: Date): Promise<void> {
  if (!(await store.revokeToken(hashToken(token), now.toISOString())))
    throw new AdminError('no such token');
}
