import type { AdminWrites } from '../store/store.js';
import { AdminError } from './admin-error.js';

export interface WorkspaceSummary {
  id: string;
  name: string;
  plan: string;
  catalogSource: string;
}

export async function listWorkspaces(store: AdminWrites): Promise<WorkspaceSummary[]> {
  return (await store.listWorkspaces()).map(({ id, name, plan, catalogSource }) => ({
    id,
    name,
    plan,
    catalogSource,
  }));
}

/** Refuses a workspace id the store does not hold. */
export async function requireWorkspace(store: AdminWrites, workspaceId: string): Promise<void> {
  if (!(await store.getWorkspace(workspaceId)))
    throw new AdminError(`unknown workspace: ${workspaceId}`);
}
