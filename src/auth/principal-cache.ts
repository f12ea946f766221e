import type { TokenReads, Workspace } from '../store/store.js';
import { authenticate, type TokenCheckers } from './authenticate.js';
import { OWN_TOKEN_RECHECK_MS } from './own-tokens.js';
import type { Principal } from './principal.js';

const MAX_ENTRIES = 10_000;

/** A kept principal and when it stops working (ms; Infinity for a token without expiry). */
interface Entry {
  principal: Principal;
  expiresAtMs: number;
  /** For a token of the built-in server: OwnTokens' epoch when it was read. */
  ownEpoch?: number;
}

/**
 * Principals by bearer header, kept only while the store's change stamp stays the same: any
 * write by any connection (a token revoked through the CLI, say) clears them all, so a change
 * still applies on the next request. A store that cannot tell cheaply (stamp null) gets no cache.
 * Workspaces are kept under the same rule, so a new token of a known workspace (an OAuth client
 * that refreshes often) does not read its workspace again. The built-in server's tokens live in
 * records written aside (no change stamp): theirs are kept at most OWN_TOKEN_RECHECK_MS, and
 * forgotten at once when this instance's server removes records (OwnTokens' epoch).
 */
export class PrincipalCache {
  private stamp: string | null = null;
  private readonly entries = new Map<string, Entry>();
  private readonly workspaces = new Map<string, Promise<Workspace | null>>();

  /** What checks OAuth access tokens; without any only access keys are accepted. */
  constructor(private readonly checkers: TokenCheckers = {}) {}

  async resolve(
    store: TokenReads,
    authorization: string | undefined,
    now: Date,
  ): Promise<Principal> {
    const stamp = await store.changeStamp();
    if (stamp === null || stamp !== this.stamp) {
      this.entries.clear();
      this.workspaces.clear();
      this.stamp = stamp;
    }
    const key = authorization ?? '';
    const hit = stamp === null ? undefined : this.entries.get(key);
    const own = this.checkers.ownTokens;
    if (
      hit &&
      hit.expiresAtMs > now.getTime() &&
      (hit.ownEpoch === undefined || hit.ownEpoch === own?.epoch)
    )
      return hit.principal;
    const ownEpoch = own?.epoch;
    const reads = stamp === null ? store : this.withKeptWorkspaces(store);
    const principal = await authenticate(reads, authorization, now, this.checkers);
    if (stamp === null) return principal;
    const stamped = { ...principal, changeStamp: stamp };
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    let expiresAtMs = principal.expiresAt === null ? Infinity : Date.parse(principal.expiresAt);
    const fromOwnServer = own !== undefined && principal.grant?.issuer === own.issuer();
    if (fromOwnServer) expiresAtMs = Math.min(expiresAtMs, now.getTime() + OWN_TOKEN_RECHECK_MS);
    this.entries.set(key, {
      principal: stamped,
      expiresAtMs,
      ownEpoch: fromOwnServer ? ownEpoch : undefined,
    });
    return stamped;
  }

  /** The store, its workspaces read once per change stamp (a handful per deployment). */
  private withKeptWorkspaces(store: TokenReads): TokenReads {
    const workspaces = this.workspaces;
    return {
      findTokenByHash: (hash) => store.findTokenByHash(hash),
      findTokenById: (id) => store.findTokenById(id),
      supplierCode: (workspaceId, supplierId) => store.supplierCode(workspaceId, supplierId),
      workerExists: (workspaceId, workerId) => store.workerExists(workspaceId, workerId),
      changeStamp: () => store.changeStamp(),
      getWorkspace(id) {
        let workspace = workspaces.get(id);
        if (!workspace) {
          workspace = store.getWorkspace(id);
          // A failed read is not kept: the next request asks again.
          workspace.catch(() => workspaces.delete(id));
          if (workspaces.size < MAX_ENTRIES) workspaces.set(id, workspace);
        }
        return workspace;
      },
    };
  }
}
