import { createHash } from 'node:crypto';
import type { TokenReads } from '../store/store.js';
import type { VerifiedAccessToken } from './access-tokens.js';
import { InvalidAccessTokenError } from './access-tokens.js';
import type { Grant, Principal } from './principal.js';
import { isRole, isScope, SCOPES, type Scope } from './scopes.js';

/**
 * A grant's id: what cursors, the quota and cached answers are bound to for an OAuth token
 * (DESIGN §4.12: SPEC's "token" is the grant, issuer, subject and client together), so a refreshed
 * access token keeps them and another person or client cannot use them. A digest, never the token.
 */
export function grantId(grant: Grant): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([grant.issuer, grant.subject, grant.clientId]))
    .digest('base64url');
  return `grant_${digest}`;
}

/**
 * An external subject's id, what its quota is bound to (DESIGN §4.16: all grants of one (issuer,
 * subject) share one budget, whatever the client). A digest, like a grant's.
 */
export function subjectId(issuer: string, subject: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([issuer, subject]))
    .digest('base64url');
  return `subject_${digest}`;
}

/** The claim's scopes (a space-separated string or an array of strings), SPEC's four only. */
function scopesOf(value: unknown): Scope[] {
  const words = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : [];
  // SPEC's four only (DESIGN §4.12): `read:audit` is given by access keys that name it (§4.17).
  return words.filter(
    (word): word is Scope =>
      typeof word === 'string' && isScope(word) && (SCOPES as readonly string[]).includes(word),
  );
}

const refuse = (reason: string) => new InvalidAccessTokenError(reason);

/**
 * The principal of a verified OAuth token: its workspace, role, worker or supplier and scopes,
 * fixed by the issuer's configuration or read from the claims it names (DESIGN §4.12). A token
 * that maps to no workspace, an unknown role, or a worker or supplier the workspace lacks is
 * refused (401), as an access key for them would be.
 */
export async function principalOfGrant(
  store: TokenReads,
  verified: VerifiedAccessToken,
): Promise<Principal> {
  const { issuer, claims } = verified;
  const names = issuer.claims;
  const workspaceId = issuer.workspace ?? claims[names.workspace];
  const role = issuer.role ?? claims[names.role];
  if (typeof workspaceId !== 'string') throw refuse('no workspace');
  if (typeof role !== 'string' || !isRole(role)) throw refuse('no known role');
  const workspace = await store.getWorkspace(workspaceId);
  if (!workspace) throw refuse('unknown workspace');
  let workerId: string | null = null;
  let supplierId: string | null = null;
  let supplierCode: string | null = null;
  if (role === 'worker') {
    const worker = claims[names.worker];
    if (typeof worker !== 'string' || !(await store.workerExists(workspaceId, worker)))
      throw refuse('unknown worker');
    workerId = worker;
  } else if (role === 'billing_entity') {
    const supplier = claims[names.supplier];
    supplierCode =
      typeof supplier === 'string' ? await store.supplierCode(workspaceId, supplier) : null;
    if (supplierCode === null) throw refuse('unknown supplier');
    supplierId = supplier as string;
  }
  const scopeClaim =
    names.scopes !== undefined ? claims[names.scopes] : (claims.scope ?? claims.scp);
  const client = claims.client_id ?? claims.azp;
  const grant: Grant = {
    issuer: issuer.issuer,
    subject: claims.sub,
    clientId: typeof client === 'string' ? client : null,
  };
  return {
    tokenId: grantId(grant),
    grant,
    quotaKey: subjectId(issuer.issuer, claims.sub),
    workspaceId,
    workspace,
    expiresAt: new Date(claims.exp * 1000).toISOString(),
    role,
    workerId,
    supplierId,
    supplierCode,
    scopes: new Set(scopesOf(scopeClaim)),
  };
}
