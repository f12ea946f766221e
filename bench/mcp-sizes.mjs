// Size of the text content of three typical MCP tool results (bytes and bytes/4 as a token estimate).
// Usage: npm run build && node bench/mcp-sizes.mjs --db data/demo.db
import { parseArgs } from 'node:util';
import { createToken } from '../dist/src/auth/tokens.js';
import { callerWithToken, callTool, toolsetOf } from '../dist/src/mcp/tools.js';
import { OPERATIONS } from '../dist/src/operations/registry.js';
import { createExecutor } from '../dist/src/service.js';
import { SqliteStore } from '../dist/src/store/sqlite/sqlite-store.js';

const { values } = parseArgs({ options: { db: { type: 'string', default: 'data/demo.db' } } });
const store = new SqliteStore(values.db);
await store.migrate();
const scopes = ['read:program', 'read:financial', 'read:workforce', 'read:pii'];
const token = await createToken(
  store,
  { workspaceId: 'ws_business', role: 'staff', scopes },
  new Date(),
);
const executor = await createExecutor({ store, quotaPerMinute: 0 });
const toolset = toolsetOf(OPERATIONS);
const bigInvoice = store.db
  .prepare(
    `SELECT invoice_id AS id FROM invoice_lines WHERE workspace_id = 'ws_business' GROUP BY invoice_id HAVING COUNT(*) > 500 LIMIT 1`,
  )
  .get().id;
const cases = {
  'list_workers (50 items)': ['list_workers', { limit: 50 }],
  'get_invoice (500-line invoice)': ['get_invoice', { id: bigInvoice }],
  'run_semantic_query (100 rows)': [
    'run_semantic_query',
    {
      query: {
        metrics: ['hours_worked', 'time_entry_count'],
        dimensions: ['supplier', 'work_date'],
        limit: 100,
      },
    },
  ],
};
const results = [];
for (const [name, [tool, args]] of Object.entries(cases)) {
  const result = await callTool(executor, toolset, callerWithToken(executor, token), {
    name: tool,
    arguments: args,
  });
  if (result.isError) throw new Error(result.content[0].text);
  const bytes = Buffer.byteLength(result.content[0].text, 'utf8');
  results.push({ name, bytes, estimatedTokens: Math.round(bytes / 4) });
}
await store.close();
console.table(results);
