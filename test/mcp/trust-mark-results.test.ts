/**
 * The trust marks of each tool result (docs/mcp.md "Trust marks"): `_meta["vms-read/trust"]` says
 * whether this result holds a provenance envelope and whether it holds personal data, the same
 * on the three ways a call is answered (the direct bytes of a plain tools/call, read raw and by
 * a 2025-era SDK client; the SDK server's callTool, through a client pinned to 2026-07-28), and
 * true exactly when the data says so; every envelope sits where the tool's templates say one can.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
} from '@modelcontextprotocol/client';
import { TRUST_META, type ResultTrust, type TrustTemplates } from '../../src/mcp/trust-marks.js';
import * as resources from '../../src/records/resources.js';
import type { RecordType } from '../../src/records/record.js';
import { findEnvelopes } from '../support/json-path.js';
import { post, startHarness, WS, type Harness } from '../support/harness.js';

type Json = Record<string, unknown>;
const ACCEPT = 'application/json, text/event-stream';
const MODERN = '2026-07-28';

/** Each record type's fields, and which of them are declared pii. */
const RECORDS = Object.values(resources)
  .filter((value): value is RecordType => typeof value === 'object' && 'fields' in value)
  .map((record) => ({
    names: Object.keys(record.fields),
    pii: Object.entries(record.fields)
      .filter(([, field]) => field.kind === 'text' && field.pii === true)
      .map(([name]) => name),
  }));

/**
 * Whether data holds personal data, found without the templates: an object whose keys are all
 * fields of one record type, with a field that type declares pii present and not null.
 */
function holdsPersonalData(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsPersonalData);
  if (typeof value !== 'object' || value === null) return false;
  const keys = Object.keys(value);
  const record = value as Json;
  const own = RECORDS.some(
    ({ names, pii }) =>
      keys.every((key) => names.includes(key)) &&
      pii.some((name) => record[name] !== undefined && record[name] !== null),
  );
  return own || Object.values(record).some(holdsPersonalData);
}

/** Whether a template (`$.items[*].displayName`, `$.rows[*].*`) covers a concrete JSONPath. */
function covers(template: string, path: string): boolean {
  const pattern = template
    .replace(/[.$[\]]/g, (c) => `\\${c}`)
    .replace(/\\\[\*\\\]/g, '\\[\\d+\\]')
    .replace(/\\\.\*/g, '\\.[A-Za-z0-9_]+');
  return new RegExp(`^${pattern}$`).test(path);
}

/** A result's trust marks, if any. */
const trustOf = (result: CallToolResult) => result._meta?.[TRUST_META];
/** A result's data with its cursor left out (each call signs a new one). */
const uncursored = (result: CallToolResult) =>
  result.structuredContent && { ...result.structuredContent, nextCursor: null };

describe('trust marks on tool results, on every path', () => {
  let h: Harness;
  let url: URL;
  let templates: Map<string, TrustTemplates>;
  const clients = new Map<string, Client>();

  /** A client of one era for one token, connected once, its tools listed (so it checks outputs). */
  async function client(token: string, era: 'legacy' | 'modern'): Promise<Client> {
    const key = `${era} ${token}`;
    let connected = clients.get(key);
    if (connected) return connected;
    connected = new Client(
      { name: 'vms-read-tests', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
    );
    await connected.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    assert.equal(connected.getProtocolEra(), era);
    await connected.listTools();
    clients.set(key, connected);
    return connected;
  }

  /**
   * One call, made raw (the direct path's bytes), by a 2025-era client and by a modern one: the
   * three results agree but for the request id; returns the raw one.
   */
  async function callEverywhere(token: string, name: string, args: Json): Promise<CallToolResult> {
    const body = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } };
    const answer = await post(h.app, '/mcp', token, body, { accept: ACCEPT });
    assert.equal(answer.status, 200, answer.raw);
    const raw = answer.body.result as CallToolResult;
    for (const era of ['legacy', 'modern'] as const) {
      const result = (await (
        await client(token, era)
      ).callTool({
        name,
        arguments: args,
      })) as CallToolResult;
      assert.equal(result.isError, raw.isError, `${name} (${era})`);
      // The modern SDK adds its own `_meta` members (serverInfo) beside the marks.
      assert.deepEqual(trustOf(result), trustOf(raw), `${name} (${era})`);
      assert.deepEqual(uncursored(result), uncursored(raw), `${name} (${era})`);
    }
    return raw;
  }

  /** A successful result's marks, checked against its data and the tool's templates. */
  function marksOf(name: string, result: CallToolResult): ResultTrust {
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    const marks = trustOf(result) as ResultTrust;
    assert.deepEqual(Object.keys(marks).sort(), ['personalData', 'untrustedThirdPartyText']);
    const data = result.structuredContent;
    const envelopes = findEnvelopes(data);
    assert.equal(marks.untrustedThirdPartyText, envelopes.length > 0, name);
    assert.equal(marks.personalData, holdsPersonalData(data), name);
    const tool = templates.get(name) as TrustTemplates;
    for (const { path } of envelopes)
      assert.ok(
        tool.untrustedThirdPartyText.some((template) => covers(template, path)),
        `${name}: ${path} is covered by a template`,
      );
    return marks;
  }

  /** A call's marks (checked) and data. */
  const call = async (token: string, name: string, args: Json) => {
    const result = await callEverywhere(token, name, args);
    return { marks: marksOf(name, result), data: result.structuredContent as Json };
  };
  /** A call whose marks must be `expected`; its data. */
  const check = async (token: string, name: string, args: Json, expected: ResultTrust) => {
    const { marks, data } = await call(token, name, args);
    assert.deepEqual(marks, expected, name);
    return data;
  };
  const both = (text: boolean, personal: boolean): ResultTrust => ({
    untrustedThirdPartyText: text,
    personalData: personal,
  });

  before(async () => {
    h = await startHarness();
    url = new URL(`${await h.app.listen({ host: '127.0.0.1', port: 0 })}/mcp`);
    const { tools } = await (await client(h.tokens.staff, 'legacy')).listTools();
    templates = new Map(
      tools.map((tool) => [tool.name, (tool._meta as Json)[TRUST_META] as TrustTemplates]),
    );
  });
  after(async () => {
    for (const connected of clients.values()) await connected.close();
    await h.close();
  });

  it('list_workers: personal data with read:pii, none without; the envelopes either way', async () => {
    await check(h.tokens.staff, 'list_workers', { limit: 3 }, both(true, true));
    const { marks, data } = await call(h.tokens.staffNoPii, 'list_workers', { limit: 3 });
    assert.equal(marks.personalData, false);
    const items = data.items as Json[];
    assert.ok(items.length > 0 && items.every((item) => !('displayName' in item)));
  });

  it('get_worker and a worker token reading itself: personal data', async () => {
    const { id } = await h.one<{ id: string }>(
      'SELECT id FROM workers WHERE workspace_id = ? AND work_email IS NULL LIMIT 1',
      WS,
    );
    const data = await check(h.tokens.staff, 'get_worker', { id }, both(true, true));
    assert.equal((data.item as Json).workEmail, null);
    await check(h.tokens.worker, 'list_workers', {}, both(true, true));
    assert.equal((await call(h.tokens.staffNoPii, 'get_worker', { id })).marks.personalData, false);
  });

  it('list_changes: the worker records personal with read:pii only', async () => {
    const args = { type: 'worker', limit: 5 };
    await check(h.tokens.staff, 'list_changes', args, both(true, true));
    const { marks, data } = await call(h.tokens.staffNoPii, 'list_changes', args);
    assert.equal(marks.personalData, false);
    assert.ok((data.items as unknown[]).length > 0);
  });

  it('reports: text dimensions are third-party text, a report without them holds none', async () => {
    const query = (dimensions: string[]) => ({ query: { metrics: ['spend'], dimensions } });
    const texts = await check(
      h.tokens.staff,
      'run_semantic_query',
      query(['supplier', 'currency']),
      both(true, false),
    );
    assert.ok((texts.rows as unknown[]).length > 0);
    const plain = await check(
      h.tokens.staff,
      'run_semantic_query',
      query(['currency']),
      both(false, false),
    );
    assert.equal(plain.status, 'ok');
    assert.ok((plain.rows as unknown[]).length > 0);
  });

  it('a refusal: its message is an envelope', async () => {
    const list = await check(
      h.tokens.staff,
      'list_workers',
      { cursor: 'garbage' },
      both(true, false),
    );
    assert.equal(list.status, 'refused');
    const report = await check(
      h.tokens.staff,
      'run_semantic_query',
      { query: { metrics: ['spnd'] } },
      both(true, false),
    );
    assert.equal(report.code, 'unknown_metric');
  });

  it('an empty list holds neither', async () => {
    const workers = await check(h.tokens.billing, 'list_workers', {}, both(false, false));
    assert.deepEqual(workers.items, []);
    const invoices = await check(h.tokens.worker, 'list_invoices', {}, both(false, false));
    assert.deepEqual(invoices.items, []);
  });

  it('an error result carries no trust marks', async () => {
    const result = await callEverywhere(h.tokens.staff, 'list_workers', { limit: 0 });
    assert.equal(result.isError, true);
    assert.equal(trustOf(result), undefined);
  });
});
