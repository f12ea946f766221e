import type { ExplorerCatalog } from '../types.js';
import { VmsReadError } from 'vms-read-client';
import { clientOf, type VmsReadClient } from './api.js';

/** What every view needs: the client of the signed-in token and, where reports are allowed, the catalog. */
export interface Session {
  client: VmsReadClient;
  /** The token's report catalog, or null when this token cannot run reports. */
  catalog: ExplorerCatalog | null;
  /** Keys of the catalog's time dimensions: a result keyed by one is drawn over time. */
  timeKeys: ReadonlySet<string>;
  /** Why there are no reports for this token, as one plain sentence; null when there are. */
  noReports: string | null;
}

/** The sentence the page shows where reports are not allowed, by the service's refusal code. */
export function noReportsSentence(code: string): string {
  return code === 'insufficient_scope'
    ? // A worker or billing-entity token without read:program is refused for the scope first:
      // the sentence holds whichever it is, a staff token without the scope or another role.
      'Reports are for staff tokens with the read:program scope; this token reads the records its role and scopes allow.'
    : 'Reports are for staff tokens; this token reads the records its role may see.';
}

/**
 * Opens a session. The catalog is the first call: a wrong or expired token is refused there (and
 * shown at sign-in); a worker or billing-entity token, or one without read:program, is refused
 * with 403 and signs in to its records alone.
 */
export async function openSession(
  token: string | (() => Promise<string>),
  onEnded: () => void,
): Promise<Session> {
  const client = clientOf(token, onEnded);
  try {
    const catalog = (await client.call('list_catalog')) as unknown as ExplorerCatalog;
    const timeKeys = new Set(catalog.dimensions.filter((d) => d.type === 'time').map((d) => d.key));
    return { client, catalog, timeKeys, noReports: null };
  } catch (error) {
    if (error instanceof VmsReadError && error.status === 403)
      return {
        client,
        catalog: null,
        timeKeys: new Set(),
        noReports: noReportsSentence(error.code),
      };
    throw error;
  }
}
