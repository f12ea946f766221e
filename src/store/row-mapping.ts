import type { Row, TokenRow, Workspace } from './store.js';

/** Stored rows of the service's own tables to their typed shapes; shared by both dialects. */
export function toWorkspace(row: Row): Workspace {
  return {
    id: String(row.id),
    name: String(row.name),
    plan: String(row.plan),
    pageSize: Number(row.page_size),
    rowBudget: Number(row.row_budget),
    catalogSource: String(row.catalog_source),
  };
}

export function toTokenRow(row: Row): TokenRow {
  return {
    id: String(row.id),
    workspaceId: String(row.workspace_id),
    role: String(row.role),
    workerId: (row.worker_id as string | null) ?? null,
    supplierId: (row.supplier_id as string | null) ?? null,
    scopes: String(row.scopes).split(' ').filter(Boolean),
    expiresAt: (row.expires_at as string | null) ?? null,
    revokedAt: (row.revoked_at as string | null) ?? null,
    inUrl: Number(row.in_url ?? 0) === 1,
  };
}
