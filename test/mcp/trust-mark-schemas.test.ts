/**
 * The trust marks in every published schema (issue 24, item 3; docs/mcp.md "Trust marks"), checked
 * against what decides them rather than against the code that writes them: every node shaped as a
 * provenance envelope (`properties.kind` const `vms.provenance`) carries `x-vms-trust` and no
 * other node does; every record in those schemas marks `x-vms-personal-data` exactly on the
 * fields src/records/resources.ts declares `pii` and nowhere else; and each tool's `_meta` lists
 * the places the envelopes and personal fields of its output schema are, in MCP's tools/list and
 * in the OpenAPI document (served and checked in) alike.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { TRUST_META, visitSchema, type TrustTemplates } from '../../src/mcp/trust-marks.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import { PERSONAL_DATA_MARK, TRUST_MARK } from '../../src/provenance.js';
import type { RecordType } from '../../src/records/record.js';
import * as resources from '../../src/records/resources.js';
import { get, startHarness, type Harness } from '../support/harness.js';

type Json = Record<string, unknown>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOCUMENT = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

/** Every record type the resources declare. */
const RECORDS = Object.values(resources).filter(
  (value): value is RecordType => typeof value === 'object' && 'fields' in value,
);
const declaredPii = (record: RecordType, name: string) => {
  const field = record.fields[name];
  return field.kind === 'text' && field.pii === true;
};

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isEnvelopeShaped = (node: Json) =>
  isObject(node.properties) &&
  isObject(node.properties.kind) &&
  node.properties.kind.const === 'vms.provenance';
const sameKeys = (a: string[], b: string[]) =>
  a.length === b.length && a.every((k) => b.includes(k));
/** The record type an object schema is the shape of (its properties are the record's fields). */
const recordOf = (node: Json) =>
  isObject(node.properties)
    ? RECORDS.find((r) => sameKeys(Object.keys(r.fields), Object.keys(node.properties as Json)))
    : undefined;

/**
 * What is wrong with the marks of a schema, by a scan of every object in it (no walk of its
 * keywords, so no branch is missed): an envelope without `x-vms-trust` or a node with it that is
 * no envelope; a record field marked personal that is not declared pii or the reverse; a
 * personal mark anywhere but on a record's pii field. `seen` collects the record types met.
 */
function markProblems(root: unknown, where: string, seen = new Set<RecordType>()): string[] {
  const problems: string[] = [];
  const personalFields = new Set<unknown>();
  const scan = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => scan(item, `${at}/${i}`));
    if (!isObject(node)) return;
    const envelope = isEnvelopeShaped(node);
    if (envelope !== (node[TRUST_MARK] === 'untrusted-third-party'))
      problems.push(
        `${where}${at}: ${envelope ? 'an envelope without' : 'no envelope, with'} x-vms-trust`,
      );
    const record = recordOf(node);
    if (record) {
      seen.add(record);
      const properties = node.properties as Record<string, Json>;
      for (const name of Object.keys(record.fields)) {
        const marked = properties[name][PERSONAL_DATA_MARK] === true;
        if (marked !== declaredPii(record, name))
          problems.push(`${where}${at}/properties/${name}: x-vms-personal-data is ${marked}`);
        if (marked) personalFields.add(properties[name]);
      }
    }
    if (PERSONAL_DATA_MARK in node && !personalFields.has(node))
      problems.push(`${where}${at}: x-vms-personal-data on no record's pii field`);
    for (const [key, value] of Object.entries(node)) scan(value, `${at}/${key}`);
  };
  scan(root, '');
  return problems;
}

/** Envelope nodes anywhere in a schema, counted by the same scan. */
function envelopeCount(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((n: number, item) => n + envelopeCount(item), 0);
  if (!isObject(node)) return 0;
  return (
    (isEnvelopeShaped(node) ? 1 : 0) +
    Object.values(node).reduce((n: number, value) => n + envelopeCount(value), 0)
  );
}

/**
 * The templates a tool's `_meta` must list, found by shape and declaration (not by the marks):
 * where the walk meets an envelope, and each declared pii field of a record it meets. The walk
 * must meet as many envelopes as the scan counts (one that skipped a keyword would miss some).
 */
function expectedTemplates(schema: unknown, where: string): TrustTemplates {
  const envelopes = new Set<string>();
  const personal = new Set<string>();
  let reached = 0;
  visitSchema(schema, (node, path) => {
    const record = recordOf(node);
    for (const name of Object.keys(record?.fields ?? {}))
      if (declaredPii(record as RecordType, name)) personal.add(`${path}.${name}`);
    if (!isEnvelopeShaped(node)) return true;
    envelopes.add(path);
    reached += 1;
    return false;
  });
  assert.equal(reached, envelopeCount(schema), `${where}: the walk missed an envelope`);
  return { untrustedThirdPartyText: [...envelopes].sort(), personalData: [...personal].sort() };
}

const sorted = (templates: TrustTemplates) => ({
  untrustedThirdPartyText: [...templates.untrustedThirdPartyText].sort(),
  personalData: [...templates.personalData].sort(),
});

/** The `data` schema of an operation's 200 answer in an OpenAPI document, through its $ref. */
function openApiData(document: Json, name: string): unknown {
  const operation = OPERATIONS.find((op) => op.name === name);
  assert.ok(operation);
  const paths = document.paths as Record<string, Record<string, Json>>;
  const entry = paths[operation.path][operation.method.toLowerCase()] as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const ref: string =
    entry.responses['200'].content['application/json'].schema.properties.data.$ref;
  const schemas = (document.components as Json).schemas as Json;
  return schemas[ref.replace('#/components/schemas/', '')];
}

describe('trust marks in every published schema', () => {
  let h: Harness;
  let tools: Tool[];
  const documents: Record<string, Json> = {};
  before(async () => {
    h = await startHarness();
    const url = new URL(`${await h.app.listen({ host: '127.0.0.1', port: 0 })}/mcp`);
    const client = new Client({ name: 'vms-read-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${h.tokens.staff}` } },
      }),
    );
    tools = (await client.listTools()).tools;
    await client.close();
    documents['served /openapi.json'] = (await get(h.app, '/openapi.json')).body;
    documents['docs/openapi.json'] = JSON.parse(readFileSync(DOCUMENT, 'utf8'));
  });
  after(() => h.close());

  it('marks envelopes and personal fields in every tool outputSchema, and nothing else', () => {
    const seen = new Set<RecordType>();
    assert.equal(tools.length, OPERATIONS.length);
    for (const tool of tools)
      assert.deepEqual(markProblems(tool.outputSchema, tool.name, seen), [], tool.name);
    assert.equal(seen.size, RECORDS.length, 'every record type is in some tool output');
    assert.ok(RECORDS.some((r) => Object.keys(r.fields).some((n) => declaredPii(r, n))));
  });

  it('marks envelopes and personal fields in the OpenAPI documents, and nothing else', () => {
    for (const [where, document] of Object.entries(documents)) {
      const seen = new Set<RecordType>();
      assert.deepEqual(markProblems(document, where, seen), [], where);
      assert.equal(seen.size, RECORDS.length, where);
    }
  });

  it("lists in each tool's _meta where its envelopes and personal fields are, as REST's schema has them", () => {
    for (const tool of tools) {
      const published = (tool._meta as Json)[TRUST_META] as TrustTemplates;
      const expected = expectedTemplates(tool.outputSchema, tool.name);
      assert.deepEqual(sorted(published), expected, tool.name);
      for (const [where, document] of Object.entries(documents)) {
        const place = `${tool.name} in ${where}`;
        assert.deepEqual(
          expectedTemplates(openApiData(document, tool.name), place),
          expected,
          place,
        );
      }
    }
    const workers = tools.find((t) => t.name === 'list_workers') as Tool;
    assert.deepEqual((workers._meta as Json)[TRUST_META], {
      untrustedThirdPartyText: [
        '$.items[*].displayName',
        '$.items[*].workEmail',
        '$.items[*].classificationStatus',
        '$.message',
      ],
      personalData: ['$.items[*].displayName', '$.items[*].workEmail'],
    });
  });

  it('finds a mark removed from one place, or put on a field not declared pii', () => {
    const workers = structuredClone(tools.find((t) => t.name === 'list_workers')) as Tool;
    const item = (workers.outputSchema as any).anyOf[0].properties.items.items; // eslint-disable-line @typescript-eslint/no-explicit-any
    delete item.properties.classificationStatus.anyOf[0][TRUST_MARK];
    item.properties.status[PERSONAL_DATA_MARK] = true;
    delete item.properties.workEmail[PERSONAL_DATA_MARK];
    const problems = markProblems(workers.outputSchema, 'list_workers');
    assert.equal(problems.length, 3, problems.join('\n'));
    assert.match(problems.join('\n'), /classificationStatus\/anyOf\/0: an envelope without/);
    assert.match(problems.join('\n'), /properties\/status: x-vms-personal-data is true/);
    assert.match(problems.join('\n'), /properties\/workEmail: x-vms-personal-data is false/);
  });

  it('leaves every schema valid for the validators in use, and for a strict one told the two keywords', () => {
    const sdk = new AjvJsonSchemaValidator();
    const lenient = new Ajv({ strict: false });
    const strict = addFormats(new Ajv2020({ strict: true }));
    strict.addVocabulary([TRUST_MARK, PERSONAL_DATA_MARK]);
    for (const tool of tools) {
      sdk.getValidator(tool.outputSchema as never);
      lenient.compile(tool.outputSchema as Json);
      strict.compile(tool.outputSchema as Json);
    }
  });
});
