/**
 * Fuzzing MCP over streamable HTTP (POST /mcp, DESIGN §4.10): random and mutated JSON-RPC, tool
 * calls of every operation of the registry with every role's token, on both stores.
 * Seeded (VMS_READ_FUZZ_SEED) and bounded in time; see fuzz-settings.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { assertError } from '../support/assertions.js';
import { DIALECTS } from '../support/harness.js';
import {
  assertMcpBody,
  assertNoEcho,
  assertNot5xx,
  assertRefusalShape,
  assertRequestIdHeader,
} from './answer-rules.js';
import { fuzzSuite } from './fuzz-context.js';
import { sendRequest } from './fuzz-request.js';
import { describeRules, fuzz } from './fuzz-settings.js';
import { mcpPost, mcpRequest, protocolError, toolCallRequest } from './mcp-requests.js';
import { oversized, sizedBody, withinLimit } from './sized-bodies.js';

const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const ANY = 'random JSON-RPC, tool calls, headers and methods';
const TOOL_CALLS = 'tool calls with mutated arguments and every role’s token';

for (const dialect of DIALECTS)
  describe(`fuzzing MCP at POST /mcp (${dialect})`, () => {
    const suite = fuzzSuite(dialect);
    const staffPost = (payload: string) => mcpPost(payload, `Bearer ${suite.h.tokens.staff}`);

    describeRules(suite, {
      'no request is answered with a 5xx, nor a tool with a 5xx error code': [
        [ANY, mcpRequest, assertNot5xx],
        [TOOL_CALLS, toolCallRequest, assertNot5xx],
      ],
      'every answer carries an x-request-id': [[ANY, mcpRequest, assertRequestIdHeader]],
      'a POST is answered with JSON-RPC 2.0, or with the REST error body for 401, 403, 405, 413, 429':
        [[ANY, mcpRequest, assertMcpBody]],
      'a tool result is the {data, request_id} envelope, or as an error the REST error body': [
        [TOOL_CALLS, toolCallRequest, assertMcpBody],
      ],
      'error messages never echo request input': [
        ['random JSON-RPC and tool calls carrying a marker anywhere', mcpRequest, assertNoEcho],
      ],
      'a refusal carries a documented code and a provenance message': [
        [TOOL_CALLS, toolCallRequest, assertRefusalShape],
      ],
    });

    describe('a batch is 400 with -32600 and a body that is not JSON is 400 with -32700', () => {
      it('holds for arrays of any messages and for text JSON.parse refuses', () =>
        fuzz(protocolError(suite.ctx), async ({ kind, payload }) => {
          const answer = await sendRequest(suite.h.app, staffPost(payload));
          assert.equal(answer.status, 400, answer.raw.slice(0, 300));
          assert.equal(answer.body?.jsonrpc, '2.0', answer.raw.slice(0, 300));
          assert.equal(answer.body.error?.code, kind === 'batch' ? -32600 : -32700);
        }));
    });

    describe('two Authorization headers are 401 unauthorized', () => {
      it('holds for any two values, valid tokens of any role included', () =>
        fuzz(
          fc.tuple(
            fc.constantFrom(...suite.ctx.bearers),
            fc.oneof(
              fc.constantFrom(...suite.ctx.bearers),
              suite.ctx.authorization.filter((a) => typeof a === 'string'),
            ),
          ),
          async (pair) => {
            const answer = await sendRequest(suite.h.app, mcpPost(TOOLS_LIST, pair as string[]));
            assertError(answer, 401, 'unauthorized');
          },
        ));
    });

    describe('a body over 1 MiB is 413 payload_too_large, and one up to 1 MiB is read', () => {
      it('refuses an oversized body with 413', () =>
        fuzz(
          oversized,
          async ({ kind, size }) => {
            const body = sizedBody(kind, size, TOOLS_LIST);
            assertError(await sendRequest(suite.h.app, staffPost(body)), 413, 'payload_too_large');
          },
          { numRuns: 30 },
        ));
      it('answers tools/list padded with whitespace', () =>
        fuzz(
          withinLimit,
          async (size) => {
            const body = sizedBody('padded valid JSON', size, TOOLS_LIST);
            const answer = await sendRequest(suite.h.app, staffPost(body));
            assert.equal(answer.status, 200, answer.raw.slice(0, 300));
            assert.ok(Array.isArray(answer.body.result?.tools));
          },
          { numRuns: 30 },
        ));
    });
  });
