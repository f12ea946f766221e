import type { ExplorerCatalog } from '../types.js';
import { isProvenance, type Provenance } from '../dom.js';

import { dataCache } from './data-follow.js';
import { mayCall } from './reach.js';
import type { Session } from './session.js';

/**
 * Names people read in place of keys: a dimension's label from the catalog, a supplier's name
 * beside its code (from list_suppliers: third-party text, kept as a provenance value), and a
 * dashboard's title from its id.
 */
export interface Names {
  /** The catalog's label of a dimension or metric key, or the key itself. */
  label(key: string): string;
  /** The supplier's name for a supplier code, when the token may list suppliers. */
  supplier(code: string): Provenance | undefined;
  /** The time dimension a metric's dates are (its view's: work date, tenure start, …). */
  timeOf(metric: string): string | undefined;
}

const loaded = dataCache<Promise<Names>>();

/**
 * Suppliers' names by code, from list_suppliers' items (codes and names are envelopes), put in
 * `names` as they come (a reader may use those that came before the list ends).
 */
export async function supplierNamesOf(
  items: AsyncIterable<unknown>,
  names = new Map<string, Provenance>(),
): Promise<Map<string, Provenance>> {
  try {
    for await (const item of items) {
      const { code, name } = item as { code?: unknown; name?: unknown };
      if (isProvenance(code) && isProvenance(name)) names.set(code.value, name);
    }
  } catch {
    // A token that may not list suppliers sees codes alone.
  }
  return names;
}

/** Names from a catalog (labels, each metric's dimensions) and suppliers' names. */
export function namesFrom(
  catalog: ExplorerCatalog | null,
  suppliers: ReadonlyMap<string, Provenance>,
  timeKeys: ReadonlySet<string>,
): Names {
  const labels = new Map<string, string>();
  for (const d of catalog?.dimensions ?? []) labels.set(d.key, d.label);
  for (const m of catalog?.metrics ?? []) labels.set(m.key, m.label);
  const dimensions = new Map((catalog?.metrics ?? []).map((m) => [m.key, m.dimensions] as const));
  return {
    label: (key: string) => labels.get(key) ?? key,
    supplier: (code: string) => suppliers.get(code),
    timeOf: (metric: string) => dimensions.get(metric)?.find((d) => timeKeys.has(d)),
  };
}

/** The names of a session, read once per data mark (the supplier list paged through once). */
export function namesOf(session: Session): Promise<Names> {
  return loaded(session, async () => {
    // A token that may not list suppliers sees codes alone, and is not refused for asking.
    const suppliers = mayCall(session.reach, 'list_suppliers')
      ? await supplierNamesOf(session.client.items('list_suppliers', { limit: 50 }))
      : new Map<string, Provenance>();
    return namesFrom(session.catalog, suppliers, session.timeKeys);
  });
}

const workerNames = dataCache<Map<string, Promise<Provenance | undefined>>>();

/** How many ids one `list_workers` call names at most (DESIGN §4.15's `ids`). */
const IDS_PER_CALL = 100;

/**
 * Workers' names by id, as far as the token may read them (read:pii; a worker out of its view, or
 * a failed call, has none). Those not known yet for this data mark are asked together, a hundred
 * ids a call (`list_workers` with `ids`): a view naming any number of workers costs one request
 * for their names, not one per worker (each of those was a get_worker in the access trail).
 */
export async function workerNamesOf(
  session: Session,
  ids: readonly string[],
): Promise<Map<string, Provenance | undefined>> {
  const known = workerNames(session, () => new Map());
  // Without read:pii the API withholds every name: nothing to ask.
  const readable = mayCall(session.reach, 'list_workers') && session.reach.scopes.has('read:pii');
  const missing = readable ? [...new Set(ids)].filter((id) => !known.has(id)) : [];
  for (let at = 0; at < missing.length; at += IDS_PER_CALL) {
    const batch = missing.slice(at, at + IDS_PER_CALL);
    const found = readNames(session, batch);
    for (const id of batch) known.set(id, found.then((names) => names.get(id)));
  }
  return new Map(await Promise.all(ids.map(async (id) => [id, await known.get(id)] as const)));
}

async function readNames(session: Session, ids: string[]): Promise<Map<string, Provenance>> {
  const names = new Map<string, Provenance>();
  try {
    // The plan's page size bounds a page (50 on Team and Business): more ids read on.
    const items = session.client.items('list_workers', { ids: ids.join(','), limit: ids.length });
    for await (const item of items)
      if (isProvenance(item.displayName)) names.set(item.id, item.displayName);
  } catch {
    // Names are an aid: the ids stand alone.
  }
  return names;
}

/**
 * A dashboard's title, read from its id: SPEC has no dashboard record, only the `dashboardId` its
 * tiles carry, so the id is the only name an operator gives it. Dashes and underscores read as
 * spaces, a leading "dash" or "dashboard" word is dropped, and the first letter is capitalised:
 * `program-operations` reads "Program operations".
 */
export function dashboardTitle(id: string): string {
  const words = id.split(/[-_\s]+/).filter(Boolean);
  if (words.length > 1 && /^dash(board)?$/i.test(words[0])) words.shift();
  const text = words.join(' ');
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : id;
}
