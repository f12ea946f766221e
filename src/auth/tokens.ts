import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AdminWrites, TokenReads, TokenRow } from '../store/store.js';
import { isScope, type Role, type Scope } from './scopes.js';

/** Bearer tokens: random, shown once, stored only as a SHA-256 hash. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export const TOKEN_PATTERN = /^vmsr_[A-Za-z0-9_-]{43}$/;

export interface TokenRequest {
  workspaceId: string;
  role: Role;
  workerId?: string | null;
  supplierId?: string | null;
  scopes: Scope[];
  expiresAt?: string | null;
  /** The OData feed may take it in the URL (`api_key`): read-only, expiring and narrow, docs/bi.md. */
  inUrl?: boolean;
}

export class TokenRequestError extends Error {}

/** Validates the request against the workspace's data, stores the hash, returns the token. */
export async function createToken(
  store: TokenReads & Pick<AdminWrites, 'insertToken'>,
  request: TokenRequest,
  now: Date,
): Promise<string> {
  const workspace = await store.getWorkspace(request.workspaceId);
  if (!workspace) throw new TokenRequestError(`unknown workspace: ${request.workspaceId}`);
  if (request.scopes.length === 0 || !request.scopes.every(isScope)) {
    throw new TokenRequestError(
      'scopes must be a non-empty list of read:program, read:financial, read:workforce, read:pii, read:audit',
    );
  }
  const workerId = request.role === 'worker' ? request.workerId : null;
  const supplierId = request.role === 'billing_entity' ? request.supplierId : null;
  if (
    request.role === 'worker' &&
    !(workerId && (await store.workerExists(workspace.id, workerId)))
  ) {
    throw new TokenRequestError(
      'a worker token needs --worker with the id of a worker of that workspace',
    );
  }
  if (
    request.role === 'billing_entity' &&
    !(supplierId && (await store.supplierCode(workspace.id, supplierId)))
  ) {
    throw new TokenRequestError(
      'a billing_entity token needs --supplier with the id of a supplier of that workspace',
    );
  }
  if (request.role === 'staff' && (request.workerId || request.supplierId)) {
    throw new TokenRequestError('a staff token takes neither --worker nor --supplier');
  }
  const token = `vmsr_${randomBytes(32).toString('base64url')}`;
  await store.insertToken({
    id: `tok_${randomUUID()}`,
    workspaceId: workspace.id,
    tokenHash: hashToken(token),
    role: request.role,
    workerId: workerId ?? null,
    supplierId: supplierId ?? null,
    scopes: [...new Set(request.scopes)],
    expiresAt: request.expiresAt ?? null,
    createdAt: now.toISOString(),
    inUrl: request.inUrl === true,
  });
  return token;
}

/** The access key of that id when it still works: stored, not revoked, not expired at `now` (ms). */
export async function liveKey(
  tokens: Pick<TokenReads, 'findTokenById'>,
  id: string,
  now: number,
): Promise<TokenRow | null> {
  const key = await tokens.findTokenById(id);
  if (!key || key.revokedAt !== null) return null;
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return null;
  return key;
}
