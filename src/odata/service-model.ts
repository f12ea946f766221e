import { createRequire } from 'node:module';
import type { Principal } from '../auth/principal.js';
import { csdlXml, type ModelSet } from './csdl-xml.js';
import { ENTITY_SETS, visibleProperties, type EntitySet } from './entity-model.js';

/**
 * What one token's feed offers (DESIGN §4.18): the sets whose scope it holds, their properties
 * without `displayName` and `workEmail` unless it holds read:pii, as the service document and
 * `$metadata` describe them. CSDL JSON is the OASIS TC's own conversion of the XML (the
 * `odata-csdl` package, kept by the TC that writes the format), so the two never disagree.
 */

// odata-csdl is CommonJS without types: its converter, typed by what is used of it.
const { xml2json } = createRequire(import.meta.url)('odata-csdl') as {
  xml2json(xml: string, options?: { annotations?: boolean }): unknown;
};

/** The sets a token may read: their list's scope (what it sees of them is its role's visibility). */
export function setsOf(principal: Principal): EntitySet[] {
  return ENTITY_SETS.filter((set) => principal.scopes.has(set.scope));
}

/** The sets whose change tracking (`Prefer: odata.track-changes`) is offered. */
export const TRACKED_SETS: ReadonlySet<string> = new Set<string>();

function modelSetsOf(principal: Principal): ModelSet[] {
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

/** Documents by what decides them: the scopes held (sets, personal properties). */
const documents = new Map<string, { xml: string; json?: string }>();

function documentOf(principal: Principal): { xml: string; json?: string } {
  const key = [...principal.scopes].sort().join(' ');
  let document = documents.get(key);
  if (!document) {
    document = { xml: csdlXml(modelSetsOf(principal), TRACKED_SETS) };
    // Scopes are a closed set: at most one document per subset of them.
    documents.set(key, document);
  }
  return document;
}

/** `$metadata` as CSDL XML. */
export function metadataXml(principal: Principal): string {
  return documentOf(principal).xml;
}

/** `$metadata` as CSDL JSON (OData CSDL JSON 4.01, `$Version` 4.0). */
export function metadataJson(principal: Principal): string {
  const document = documentOf(principal);
  document.json ??= JSON.stringify(xml2json(document.xml, { annotations: true }));
  return document.json;
}

/** The service document: the sets this token may read, by name and URL. */
export function serviceDocument(base: string, principal: Principal): string {
  return JSON.stringify({
    '@odata.context': `${base}$metadata`,
    value: setsOf(principal).map((set) => ({ name: set.name, kind: 'EntitySet', url: set.name })),
  });
}
