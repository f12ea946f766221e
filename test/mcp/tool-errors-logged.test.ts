import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { FastifyInstance } from 'fastify';
import { createToken } from '../../src/auth/tokens.js';
import { StoreUnavailableError, type ErrorLogger } from '../../src/errors.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { callerWithToken, toolsetOf } from '../../src/mcp/tools.js';
import type { Executor } from '../../src/operations/executor.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import { createExecutor, createService } from '../../src/service.js';
import type { SqlStore } from '../../src/store/sql-store.js';
import { CLI } from '../support/cli.js';
import { ALL_SCOPES, DIALECTS, post, startHarness, WS, type Harness } from '../support/harness.js';
import { assertToolError, newClient } from '../support/mcp-client.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

/**
 * One error policy for HTTP and MCP: a tool call that fails with an internal error (500) is
 * logged as an error, one that meets a store outage (503) as a warning, a client error not at
 * all; with the tool's name and the request_id its error body carries.
 */

interface Entry {
  level: 'error' | 'warn';
  fields: Record<string, unknown>;
  message: string;
}

function capturingLogger(): { entries: Entry[]; logger: ErrorLogger } {
  const entries: Entry[] = [];
  const entry = (level: Entry['level']) => (fields: object, message: string) =>
    entries.push({ level, fields: fields as Record<string, unknown>, message });
  return { entries, logger: { error: entry('error'), warn: entry('warn') } };
}

/** Runs `body` while the store's page reads fail with `error`. */
async function whileListsFail<T>(
  store: SqlStore,
  error: Error,
  body: () => Promise<T>,
): Promise<T> {
  const listPage = store.listPage;
  store.listPage = async () => {
    throw error;
  };
  try {
    return await body();
  } finally {
    store.listPage = listPage;
  }
}

const requestIdOf = (result: CallToolResult): string =>
  JSON.parse((result.content[0] as { text: string }).text).request_id;

const FAILURES = [
  { name: 'an internal error', error: () => new Error('disk I/O error'), code: 'internal' },
  { name: 'a store outage', error: () => new StoreUnavailableError('gone'), code: 'unavailable' },
] as const;
const LEVEL = { internal: 'error', unavailable: 'warn' } as const;
const PINO_LEVEL = { error: 50, warn: 40 } as const;

for (const dialect of DIALECTS) {
  describe(`MCP tool failures are logged like HTTP's (${dialect})`, () => {
    let h: Harness;
    let app: FastifyInstance;
    let executor: Executor;
    const lines: Record<string, unknown>[] = [];
    before(async () => {
      h = await startHarness({ dialect });
      executor = await createExecutor({ store: h.store, secret: 'test-secret', quotaPerMinute: 0 });
      ({ app } = await createService({
        store: h.store,
        secret: 'test-secret',
        quotaPerMinute: 0,
        origins: { allowedOrigins: [] },
        logger: {
          level: 'info',
          stream: { write: (line: string) => lines.push(JSON.parse(line)) },
        },
      }));
      await app.ready();
    });
    after(async () => {
      await app.close();
      await h.close();
    });

    /** list_workers through an in-memory MCP server whose tool failures go to `logger`. */
    async function call(token: string, logger: ErrorLogger): Promise<CallToolResult> {
      const caller = callerWithToken(executor, token);
      const server = createMcpServer(executor, toolsetOf(OPERATIONS), caller, logger);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = newClient();
      await client.connect(clientSide);
      try {
        return (await client.callTool({ name: 'list_workers', arguments: {} })) as CallToolResult;
      } finally {
        await client.close();
      }
    }

    for (const failure of FAILURES) {
      it(`logs a tool call failing with ${failure.name} (${failure.code}) at ${LEVEL[failure.code]}`, async () => {
        const { entries, logger } = capturingLogger();
        const error = failure.error();
        const result = await whileListsFail(h.store, error, () => call(h.tokens.staff, logger));
        assertToolError(result, failure.code);
        assert.deepEqual(entries, [
          {
            level: LEVEL[failure.code],
            message: failure.code,
            fields: { err: error, tool: 'list_workers', tool_request_id: requestIdOf(result) },
          },
        ]);
      });

      it(`logs it on HTTP /mcp too, under the HTTP request's id (${failure.code})`, async () => {
        lines.length = 0;
        const answer = await whileListsFail(h.store, failure.error(), () =>
          post(
            app,
            '/mcp',
            h.tokens.staff,
            {
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'list_workers', arguments: {} },
            },
            { accept: 'application/json, text/event-stream' },
          ),
        );
        assert.equal(answer.status, 200);
        const result = answer.body.result as CallToolResult;
        assertToolError(result, failure.code);
        const logged = lines.filter((line) => line.tool === 'list_workers');
        assert.equal(logged.length, 1, JSON.stringify(lines));
        assert.equal(logged[0].level, PINO_LEVEL[LEVEL[failure.code]]);
        assert.equal(logged[0].msg, failure.code);
        assert.equal(logged[0].request_id, answer.headers['x-request-id']);
        assert.equal(logged[0].tool_request_id, requestIdOf(result));
        assert.equal((logged[0].err as { message: string }).message, failure.error().message);
      });
    }

    it('does not log a client error (an unknown token is 401 unauthorized)', async () => {
      const { entries, logger } = capturingLogger();
      assertToolError(await call(`vmsr_${'C'.repeat(43)}`, logger), 'unauthorized');
      assert.deepEqual(entries, []);
    });
  });
}

/** Talks JSON-RPC to `vms-read mcp` by hand, keeping every stdout and stderr line. */
function stdioSession(child: ChildProcessWithoutNullStreams) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  const collect = (into: string[], onLine?: (line: string) => void) => {
    let rest = '';
    return (chunk: Buffer) => {
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) {
        into.push(line);
        onLine?.(line);
      }
    };
  };
  child.stdout.on(
    'data',
    collect(stdout, (line) => {
      const message = JSON.parse(line);
      waiting.get(message.id)?.(message);
    }),
  );
  child.stderr.on('data', collect(stderr));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`vms-read mcp exited (${code}): ${stderr.join('\n')}`)),
    ),
  );
  exited.catch(() => {});
  let next = 1;
  return {
    stdout,
    stderr,
    request(method: string, params: unknown): Promise<Record<string, unknown>> {
      const id = next++;
      const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return Promise.race([answered, exited]);
    },
    notify(method: string) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
  };
}

/** The workers table out of the way: reading it fails in the database, a 500 `internal`. */
async function breakWorkers(database: TestDatabase): Promise<void> {
  const sql = 'ALTER TABLE workers RENAME TO workers_gone';
  if (database.dialect === 'postgres') {
    await database.all(sql);
    return;
  }
  const db = new Database(database.db);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

for (const dialect of DIALECTS) {
  describe(`vms-read mcp logs a failed tool call to stderr, never stdout (${dialect})`, () => {
    let database: TestDatabase;
    let token: string;
    before(async () => {
      database = await openTestDatabase(dialect);
      token = await createToken(
        database.store,
        { workspaceId: WS, role: 'staff', scopes: ALL_SCOPES },
        new Date(),
      );
    });
    after(() => database.drop());

    it('writes one JSON error line naming the tool and the request_id of the error body', async () => {
      const child = spawn(process.execPath, [CLI, 'mcp', '--db', database.db, '--token', token], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const session = stdioSession(child);
      try {
        await session.request('initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        });
        session.notify('notifications/initialized');
        await breakWorkers(database);
        const answer = await session.request('tools/call', { name: 'list_workers', arguments: {} });
        const result = answer.result as CallToolResult;
        assertToolError(result, 'internal');
        const deadline = Date.now() + 10_000;
        while (!session.stderr.some((l) => l.includes('list_workers')) && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 50));
        const logged = session.stderr
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line))
          .filter((line) => line.tool === 'list_workers');
        assert.equal(logged.length, 1, session.stderr.join('\n'));
        assert.equal(logged[0].level, 50);
        assert.equal(logged[0].msg, 'internal');
        assert.equal(logged[0].tool_request_id, requestIdOf(result));
        assert.match(logged[0].err.message, /workers/);
        // stdout carries the protocol and nothing else.
        for (const line of session.stdout) assert.equal(JSON.parse(line).jsonrpc, '2.0', line);
      } finally {
        if (child.exitCode === null) {
          child.stdin.end();
          await new Promise((resolve) => child.once('exit', resolve));
        }
      }
    });
  });
}
