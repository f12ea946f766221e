import type { TokenReads } from '../store/store.js';
import type { AccessTokenVerifier } from './access-tokens.js';
import { authenticate } from './authenticate.js';
import type { Principal } from './principal.js';

const MAX_ENTRIES = 10_000;

/**
 * Principals by bearer header, kept only while the store's change stamp stays the same: any
 * write by any connection (a token revoked through the CLI, say) clears them all, so a change
 * still applies on the next request. A store that cannot tell cheaply (stamp null) gets no cache.
 */
export class PrincipalCache {
  private stamp: string | null = null;
  private readonly entries = new Map<string, Principal>();

  /** `accessTokens` checks OAuth access tokens; without it only access keys are accepted. */
  constructor(private readonly accessTokens?: AccessTokenVerifier) {}

  async resolve(
    store: TokenReads,
    authorization: string | undefined,
    now: Date,
  ): Promise<Principal> {
    const stamp = await store.changeStamp();
    if (stamp === null || stamp !== this.stamp) {
      this.entries.clear();
      this.stamp = stamp;
    }
    const key = authorization ?? '';
    const hit = stamp === null ? undefined : this.entries.get(key);
    if (hit && (hit.expiresAt === null || Date.parse(hit.expiresAt) > now.getTime())) return hit;
    const principal = await authenticate(store, authorization, now, this.accessTokens);
    if (stamp === null) return principal;
    const stamped = { ...principal, changeStamp: stamp };
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, stamped);
    return stamped;
  }
}
