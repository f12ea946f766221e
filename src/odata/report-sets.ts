import type { Principal } from '../auth/principal.js';
import type { Executor } from '../operations/executor.js';
import { listCatalog, runSavedQuery } from '../operations/reports.js';
import type { Catalog } from '../semantic/catalog.js';
import { checkSavedDefinition } from '../semantic/saved-definition.js';
import type { Keyset } from '../store/store.js';
import type { ModelSet } from './csdl-xml.js';
import type { EdmType, EntityProperty } from './entity-model.js';

/**
 * The report layer in the feed (DESIGN §4.18): each saved query a token may run (staff, with
 * run_saved_query's scope) is a set `SavedQuery_<id>`, typed by its dimensions and metrics, whose
 * rows are the query run now through run_saved_query; the catalog is `Metrics`, list_catalog's
 * metrics. Rows are a report's (at most 1,000): they are read whole, filtered by no option of
 * the feed's grammar (their sets say so in `$metadata`), and counted under `row`, their key.
 */

export interface ReportSet extends ModelSet {
  properties: EntityProperty[];
  /** The saved query's id; absent for `Metrics`. */
  savedQueryId?: string;
}

export const METRICS_SET = 'Metrics';

const property = (
  name: string,
  type: EdmType,
  nullable: boolean,
  provenance = false,
): EntityProperty => ({
  name,
  type,
  nullable,
  column: name,
  provenance,
  personal: false,
  filterable: false,
  sortable: false,
});

/** A saved query's set name: its id with every character outside `[A-Za-z0-9_]` written `_`. */
export const savedQuerySetName = (id: string) => `SavedQuery_${id.replace(/[^A-Za-z0-9_]/g, '_')}`;

const METRICS: ReportSet = {
  name: METRICS_SET,
  typeName: 'Metric',
  key: ['key'],
  properties: [
    property('key', 'Edm.String', false),
    property('label', 'Edm.String', false),
    property('description', 'Edm.String', false),
    property('unit', 'Edm.String', false),
    property('dimensions', 'Collection(Edm.String)', false),
    property('evaluative', 'Edm.Boolean', false),
  ],
  navigation: [],
};

const UNIT_TYPES: Record<string, EdmType> = { cents: 'Edm.Int64', count: 'Edm.Int64' };

/** The saved queries' sets this token may read, typed from their definitions and the catalog now. */
async function savedQuerySets(executor: Executor, principal: Principal, catalog: Catalog) {
  const store = executor.deps.store;
  const sets: ReportSet[] = [];
  const names = new Set<string>();
  let after: Keyset | null = null;
  for (;;) {
    const page = await store.listSavedQueries(principal.workspaceId, null, after, 100);
    for (const listed of page) {
      const saved = await store.getSavedQuery(principal.workspaceId, String(listed.id));
      const checked = saved && checkSavedDefinition(String(saved.definition));
      if (!saved || !checked || !checked.ok) continue;
      const { query } = checked.definition;
      const metrics = query.metrics.map((key) => catalog.metrics.get(key));
      const dimensions = (query.dimensions ?? []).map((key) => catalog.dimensions.get(key));
      // A query that no longer runs (a metric removed) is no set until it does again.
      if (metrics.some((m) => m === undefined || m.evaluative) || dimensions.some((d) => !d))
        continue;
      const name = savedQuerySetName(String(saved.id));
      if (names.has(name)) continue;
      names.add(name);
      sets.push({
        name,
        typeName: name,
        key: ['row'],
        description: String(saved.name),
        savedQueryId: String(saved.id),
        properties: [
          property('row', 'Edm.Int32', false),
          ...dimensions.map((d) =>
            property(d!.key, d!.type === 'time' ? 'Edm.Date' : 'Edm.String', true, d!.text),
          ),
          ...metrics.map((m) => property(m!.key, UNIT_TYPES[m!.unit] ?? 'Edm.Double', true)),
        ],
        navigation: [],
      });
    }
    if (page.length < 100) break;
    const last = page[page.length - 1];
    after = [String(last.pinned_at), String(last.id)];
  }
  return sets;
}

/** The report sets of a token: `Metrics` with read:program, saved queries with read:financial; staff only. */
export async function reportSetsOf(executor: Executor, principal: Principal): Promise<ReportSet[]> {
  if (principal.role !== 'staff') return [];
  const sets: ReportSet[] = [];
  if (principal.scopes.has('read:program')) sets.push(METRICS);
  if (principal.scopes.has('read:financial'))
    sets.push(
      ...(await savedQuerySets(executor, principal, await executor.catalogOf(principal.workspace))),
    );
  return sets;
}

/** A report answer's value as the feed serves it: an envelope's text, a big number as a number. */
const plainValue = (value: unknown): unknown =>
  value !== null && typeof value === 'object' && 'value' in value
    ? (value as { value: unknown }).value
    : value;

/** The rows of a report set, numbered: the catalog's metrics, or the saved query run now (every page). */
export async function reportRows(
  executor: Executor,
  principal: Principal,
  set: ReportSet,
  receivedAt: number,
): Promise<Record<string, unknown>[]> {
  // Every page within the request's own time limit, counted from its receipt.
  const arrival = () => ({ fromQueryString: false, receivedAt });
  if (set.savedQueryId === undefined) {
    const catalog = (await executor.run(listCatalog, principal, {}, arrival())) as {
      metrics: Record<string, unknown>[];
    };
    return catalog.metrics;
  }
  const rows: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const input =
      cursor === undefined
        ? { savedQueryId: set.savedQueryId }
        : { savedQueryId: set.savedQueryId, cursor };
    const answer = (await executor.run(runSavedQuery, principal, input, arrival())) as {
      status: string;
      rows?: Record<string, unknown>[];
      nextCursor?: string | null;
    };
    if (answer.status === 'refused') throw new SavedQueryRefused();
    for (const row of answer.rows ?? [])
      rows.push({
        row: rows.length + 1,
        ...Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plainValue(v)])),
      });
    cursor = answer.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return rows;
}

/** The saved query refused to run (its definition no longer passes, a metric went). */
export class SavedQueryRefused extends Error {}
