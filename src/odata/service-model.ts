import type { Principal } from '../auth/principal.js';
import type { Executor } from '../operations/executor.js';
import { csdlXml, type ModelSet } from './csdl-xml.js';
import { ENTITY_SETS, visibleProperties, type EntitySet } from './entity-model.js';
import { reportSetsOf, type ReportSet } from './report-sets.js';
import { isTracked } from './delta-reads.js';
import { xml2json } from 'odata-csdl';

/**
 * What one token's feed offers (DESIGN §4.18): the resource sets whose scope it holds, their
 * properties without `displayName` and `workEmail` unless it holds read:pii, and the report sets
 * (saved queries, Metrics) a staff token may run, as the service document and `$metadata`
 * describe them. CSDL JSON is the OASIS TC's own conversion of the XML (the `odata-csdl` package,
 * kept by the TC that writes the format), so the two never disagree.
 */

// odata-csdl is CommonJS without types (odata-csdl.d.ts types what is used of it); imported, not
// required at run time, so that the command's bundle holds it.

/** The resource sets a token may read: their list's scope (what it sees is its role's visibility). */
export function setsOf(principal: Principal): EntitySet[] {
  return ENTITY_SETS.filter((set) => principal.scopes.has(set.scope));
}

/** The sets whose change tracking (`Prefer: odata.track-changes`) is offered. */
export const TRACKED_SETS: ReadonlySet<string> = new Set(
  ENTITY_SETS.filter(isTracked).map((set) => set.name),
);

function resourceModelSets(principal: Principal): ModelSet[] {
  const pii = principal.scopes.has('read:pii');
  const sets = setsOf(principal);
  const names = new Set(sets.map((s) => s.name));
  return sets.map((set) => ({
    name: set.name,
    typeName: set.typeName,
    key: ['id'],
    properties: visibleProperties(set, pii),
    // A navigation to a set the token does not read is left out with that set.
    navigation: set.navigation.filter((n) => names.has(n.target)),
  }));
}

/** One token's model: its resource sets and report sets, and its documents once written. */
export interface TokenModel {
  resources: ModelSet[];
  reports: ReportSet[];
  xml?: string;
  json?: string;
}

/**
 * Models by what decides them: the workspace, the role and scopes held, and the store's state
 * (saved queries and the catalog change with it). At most MODELS kept, the oldest dropped.
 */
const models = new Map<string, Promise<TokenModel>>();
const MODELS = 200;

export function modelOf(executor: Executor, principal: Principal): Promise<TokenModel> {
  const key = JSON.stringify([
    principal.workspaceId,
    principal.role,
    [...principal.scopes].sort(),
    principal.changeStamp ?? null,
  ]);
  let model = principal.changeStamp === undefined ? undefined : models.get(key);
  if (!model) {
    model = reportSetsOf(executor, principal).then((reports) => ({
      resources: resourceModelSets(principal),
      reports,
    }));
    model.catch(() => models.delete(key));
    if (models.size >= MODELS) models.delete(models.keys().next().value as string);
    if (principal.changeStamp !== undefined) models.set(key, model);
  }
  return model;
}

/** `$metadata` as CSDL XML. */
export function metadataXml(model: TokenModel): string {
  model.xml ??= csdlXml([...model.resources, ...model.reports], TRACKED_SETS);
  return model.xml;
}

/** `$metadata` as CSDL JSON (OData CSDL JSON 4.01, `$Version` 4.0). */
export function metadataJson(model: TokenModel): string {
  model.json ??= JSON.stringify(xml2json(metadataXml(model), { annotations: true }));
  return model.json;
}

/** The service document: the sets this token may read, by name and URL. */
export function serviceDocument(base: string, model: TokenModel): string {
  return JSON.stringify({
    '@odata.context': `${base}$metadata`,
    value: [...model.resources, ...model.reports].map((set) => ({
      name: set.name,
      kind: 'EntitySet',
      url: set.name,
    })),
  });
}
