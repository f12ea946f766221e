import { clientOf, type VmsReadClient } from './api.js';

/** What every view needs: the client of the signed-in token and the catalog's time dimensions. */
export interface Session {
  client: VmsReadClient;
  /** Keys of the catalog's time dimensions: a result keyed by one is drawn over time. */
  timeKeys: ReadonlySet<string>;
  catalog: Awaited<ReturnType<VmsReadClient['call']>> & { metrics: unknown[] };
}

/** Opens a session: the catalog is the first call, so a bad token or role shows at sign-in. */
export async function openSession(token: string): Promise<Session> {
  const client = clientOf(token);
  const catalog = await client.call('list_catalog');
  const timeKeys = new Set(catalog.dimensions.filter((d) => d.type === 'time').map((d) => d.key));
  return { client, timeKeys, catalog };
}
