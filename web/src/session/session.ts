import type { ExplorerCatalog } from '../types.js';
import { VmsReadError } from 'vms-read-client';
import { clientOf, type VmsReadClient } from './api.js';

/**
 * The data as the page last saw it (data-follow.ts): where the change feed stood, and what the
 * page's kept names and choices are keyed by.
 */
export interface DataMark {
  /** Where the feed stood when the mark was made; null until it is known. */
  cursor: string | null;
  /** What the caches are keyed by: a new object when the data moves. */
  generation: object;
}

export const newDataMark = (): DataMark => ({ cursor: null, generation: {} });

/** What every view needs: the client of the signed-in token and, where reports are allowed, the catalog. */
export interface Session {
  client: VmsReadClient;
  /** The token's report catalog, or null when this token cannot run reports. */
  catalog: ExplorerCatalog | null;
  /** Keys of the catalog's time dimensions: a result keyed by one is drawn over time. */
  timeKeys: ReadonlySet<string>;
  /** Why there are no reports for this token, as one plain sentence; null when there are. */
  noReports: string | null;
  /** The data as the page last saw it (data-follow.ts): what its kept names are keyed by. */
  data: DataMark;
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
    return { client, catalog, timeKeys, noReports: null, data: newDataMark() };
  } catch (error) {
    if (error instanceof VmsReadError && error.status === 403)
      return {
        client,
        catalog: null,
        timeKeys: new Set(),
        noReports: noReportsSentence(error.code),
        data: newDataMark(),
      };
    throw error;
  }
}
