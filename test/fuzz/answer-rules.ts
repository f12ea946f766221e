import assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ERRORS, type ErrorCode } from '../../src/errors.js';
import { REFUSAL_MESSAGES, type RefusalCode } from '../../src/semantic/refusals.js';
import { provenance } from '../../src/provenance.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import { assertErrorAnswer, assertErrorBody, UUID_V4 } from '../support/assertions.js';
import type { Answer } from '../support/harness.js';
import { assertEnvelope } from '../support/mcp-client.js';
import { parsedPayload, shown, type FuzzRequest } from './fuzz-request.js';
import { markersIn } from './hostile-text.js';

/** The rules every answer keeps, whatever was asked (DESIGN §4.1, §4.10; SPEC "Errors"). */

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The text content of a tool's result. */
const toolText = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/**
 * Rule 1: whatever the request, the service answers it without a 5xx; over MCP, a tool error
 * (what HTTP would answer with an error status) carries no 5xx code either.
 */
export function assertNot5xx(_: FuzzRequest, answer: Answer): void {
  assert.ok(answer.status < 500, shown(answer));
  const result = isObject(answer.body) ? answer.body.result : undefined;
  if (!isObject(result) || result.isError !== true) return;
  const code = (JSON.parse(toolText(result as CallToolResult)) as { error?: { code?: string } })
    .error?.code as ErrorCode;
  assert.ok(!Object.hasOwn(ERRORS, code) || ERRORS[code].status < 500, shown(answer));
}

function pathOf(request: FuzzRequest): string {
  return request.url.split('?')[0];
}

/** The operation a REST request reaches, if its method and path are one of the registry's. */
function operationOf(request: FuzzRequest) {
  return OPERATIONS.find((op) => op.method === request.method && op.path === pathOf(request));
}

/** A page for people (the web page, the API reference): HTML under a Content-Security-Policy. */
function assertPage(answer: Answer): void {
  assert.match(String(answer.headers['content-type']), /^text\/html/, shown(answer));
  assert.match(String(answer.headers['content-security-policy']), /script-src 'self'/);
}

/** What the published pages and documents answer to a GET: not API answers, each its own shape. */
const PAGES: Record<string, (answer: Answer) => void> = {
  '/': assertPage,
  '/app': assertPage,
  '/docs': assertPage,
  '/openapi.json': (answer) => assert.equal(answer.body?.openapi, '3.1.0', shown(answer)),
};

/**
 * Rule 2: `{data, request_id}` on 200 (`{status: "ok"}` on /healthz, a page or document on the
 * published paths), else the error body.
 */
export function assertRestAnswer(request: FuzzRequest, answer: Answer): void {
  assertRequestIdHeader(request, answer);
  if (request.method === 'HEAD') return assert.equal(answer.raw, '', 'a HEAD answer has no body');
  if (answer.status !== 200) return assertErrorAnswer(answer);
  if (pathOf(request) === '/healthz') return assert.deepEqual(answer.body, { status: 'ok' });
  const page = request.method === 'GET' ? PAGES[pathOf(request)] : undefined;
  if (page) return page(answer);
  assert.deepEqual(Object.keys(answer.body ?? {}).sort(), ['data', 'request_id'], shown(answer));
  assert.equal(answer.body.request_id, answer.headers['x-request-id']);
}

/** HTTP-level refusals on /mcp come before JSON-RPC and carry the REST error body. */
const HTTP_REFUSALS = new Set([401, 403, 405, 413, 429]);

function assertJsonRpcResponse(answer: Answer, request: unknown): void {
  const { body } = answer;
  const context = shown(answer);
  assert.ok(isObject(body), `a JSON-RPC response object: ${context}`);
  assert.equal(body.jsonrpc, '2.0', context);
  const requestId = isObject(request) ? request.id : undefined;
  if ('error' in body) {
    assert.deepEqual(Object.keys(body).sort(), ['error', 'id', 'jsonrpc'], context);
    const { error } = body;
    assert.ok(isObject(error) && Number.isInteger(error.code), context);
    assert.equal(typeof error.message, 'string', context);
    assert.ok(
      Object.keys(error).every((k) => ['code', 'message', 'data'].includes(k)),
      context,
    );
    if (body.id !== null) assert.deepEqual(body.id, requestId, context);
  } else {
    assert.deepEqual(Object.keys(body).sort(), ['id', 'jsonrpc', 'result'], context);
    assert.ok(isObject(body.result), context);
    assert.deepEqual(body.id, requestId, context);
  }
}

/** The tools/call the request made, if it was one. */
function toolCallOf(request: FuzzRequest): { name: unknown } | undefined {
  const message = parsedPayload(request);
  if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params))
    return undefined;
  return message.params as { name: unknown };
}

/** A tool's result: the `{data, request_id}` envelope, or as an error the REST error body. */
function assertToolResult(result: CallToolResult): void {
  if (result.isError === true) {
    assert.equal(result.structuredContent, undefined);
    assertErrorBody(JSON.parse(toolText(result)));
    return;
  }
  assertEnvelope(result);
  const { request_id } = JSON.parse(toolText(result));
  assert.match(request_id, UUID_V4);
}

/** Every answer, REST or /mcp, carries a lowercase UUID v4 in `x-request-id`. */
export function assertRequestIdHeader(_: FuzzRequest, answer: Answer): void {
  assert.match(String(answer.headers['x-request-id']), UUID_V4, `x-request-id: ${shown(answer)}`);
}

/**
 * Rule 3: a POST to /mcp is answered with a JSON-RPC 2.0 response (202 and no body for a
 * notification), or refused at the HTTP level with the REST error body.
 */
export function assertMcpBody(request: FuzzRequest, answer: Answer): void {
  if (request.method === 'HEAD') return assert.equal(answer.raw, '', 'a HEAD answer has no body');
  if (request.method !== 'POST' || HTTP_REFUSALS.has(answer.status))
    return assertErrorAnswer(answer);
  const message = parsedPayload(request);
  // Batches left MCP in 2025-06-18: one JSON-RPC error answers the whole array.
  if (Array.isArray(message))
    assert.ok(
      isObject(answer.body) && 'error' in answer.body,
      `a batch is refused: ${shown(answer)}`,
    );
  if (answer.status === 202) {
    assert.equal(answer.raw, '');
    assert.ok(
      isObject(message) && !('id' in message),
      `202 answers a notification only: ${shown(answer)}`,
    );
    return;
  }
  assertJsonRpcResponse(answer, message);
  const call = toolCallOf(request);
  if (call && 'result' in answer.body) assertToolResult(answer.body.result);
}

/** What a bad_filter message of run_semantic_query says: which filter, and why (validate.ts). */
const BAD_FILTER_MESSAGE = /^Filter on [a-z_]+ \(query\.filters\[\d+\]\): [^\n]+\.$/;

/**
 * Rule 5: a refusal has a documented code and, as message, its `$.message` provenance envelope:
 * the code's fixed text, or for bad_filter of run_semantic_query one naming the filter and why.
 */
function assertRefusal(data: unknown, operationName: string | undefined): void {
  if (!isObject(data) || data.status !== 'refused') return;
  const code = data.code as RefusalCode;
  assert.ok(Object.hasOwn(REFUSAL_MESSAGES, code), `refusal code ${String(code)}`);
  const value = isObject(data.message) ? data.message.value : undefined;
  const text =
    code === 'bad_filter' && operationName === 'run_semantic_query' && typeof value === 'string'
      ? value
      : REFUSAL_MESSAGES[code];
  if (text !== REFUSAL_MESSAGES[code]) assert.match(text, BAD_FILTER_MESSAGE);
  assert.deepEqual(data.message, provenance(text, String(operationName), '$.message'));
}

/** The `data` of a successful answer, REST or MCP, and the operation that gave it. */
function dataOf(
  request: FuzzRequest,
  answer: Answer,
): { data: unknown; operation?: string } | null {
  if (answer.status !== 200 || !isObject(answer.body)) return null;
  if (request.url !== '/mcp')
    return { data: answer.body.data, operation: operationOf(request)?.name };
  const call = toolCallOf(request);
  const result = answer.body.result as CallToolResult | undefined;
  if (!call || !isObject(result) || result.isError === true) return null;
  return { data: result.structuredContent, operation: String(call.name) };
}

export function assertRefusalShape(request: FuzzRequest, answer: Answer): void {
  const found = dataOf(request, answer);
  if (found) assertRefusal(found.data, found.operation);
}

const refusalMessage = (data: unknown) =>
  isObject(data) && data.status === 'refused' ? JSON.stringify(data.message) : '';

/** What the service wrote in a JSON-RPC response: its error, a tool error, a refusal message. */
function jsonRpcText(response: unknown): string {
  if (!isObject(response)) return JSON.stringify(response) ?? '';
  if ('error' in response) return JSON.stringify(response.error);
  const { result } = response;
  if (!isObject(result)) return '';
  return result.isError === true
    ? JSON.stringify(result.content)
    : refusalMessage(result.structuredContent);
}

/**
 * The text the service wrote about a request: an error body, a JSON-RPC error (not its `id`,
 * which a response must repeat), a tool error, a refusal's message. Data (a query echoed in
 * `semanticQuery`, say) is not such text.
 */
function serviceText(answer: Answer): string {
  const { body } = answer;
  if (Array.isArray(body)) return body.map(jsonRpcText).join('\n');
  if (isObject(body) && 'jsonrpc' in body) return jsonRpcText(body);
  if (answer.status !== 200 || !isObject(body)) return answer.raw;
  return refusalMessage(body.data);
}

/** Rule 4: no marker the request carried comes back in anything the service wrote about it. */
export function assertNoEcho(request: FuzzRequest, answer: Answer): void {
  const text = serviceText(answer).toLowerCase();
  for (const m of markersIn(request.url, request.headers, request.payload ?? ''))
    assert.ok(!text.includes(m.toLowerCase()), `${m} echoed: ${shown(answer)}`);
}
