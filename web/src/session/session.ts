import type { ExplorerCatalog } from '../types.js';
import { VmsReadError } from 'vms-read-client';
import { clientOf, type VmsReadClient } from './api.js';
import { refusalOf, unknownReach, type TokenReach } from './reach.js';

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
  /** What the token may call (reach.ts): its role and scopes, as the server said them. */
  reach: TokenReach;
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
 * Opens a session. The first call is the change feed's present end (any valid token may read it;
 * a wrong or expired token is refused there, and shown at sign-in): its answer says the token's
 * role and scopes, and starts the data mark. The catalog is read only where they allow reports;
 * a worker or billing-entity token, or one without read:program, signs in to its records alone.
 */
export async function openSession(
  token: string | (() => Promise<string>),
  onEnded: () => void,
): Promise<Session> {
  const reach = unknownReach();
  const client = clientOf(token, onEnded, reach);
  const data = newDataMark();
  const latest = await client.call('list_changes', { start: 'latest' });
  if (!('status' in latest)) data.cursor = latest.nextCursor;
  const without = (code: string): Session => ({
    client,
    catalog: null,
    timeKeys: new Set(),
    noReports: noReportsSentence(code),
    data,
    reach,
  });
  // As the API would refuse the catalog: the scope first (read:program), then the role.
  const refused = refusalOf(reach, 'list_catalog');
  if (refused) return without(refused);
  try {
    const catalog = (await client.call('list_catalog')) as unknown as ExplorerCatalog;
    const timeKeys = new Set(catalog.dimensions.filter((d) => d.type === 'time').map((d) => d.key));
    return { client, catalog, timeKeys, noReports: null, data, reach };
  } catch (error) {
    if (error instanceof VmsReadError && error.status === 403) return without(error.code);
    throw error;
  }
}
