import { eraseWorker } from '../admin/erase.js';
import { DB_FLAG, openDb, requiredId } from './args.js';
import { defineCommand } from './command.js';
import { SUMMARIES } from './summaries.js';

/** `erase`: a worker's right to be forgotten (admin/erase.ts). */
export const eraseCommand = defineCommand({
  name: 'erase',
  synopsis: '--db D --workspace W --worker ID',
  summary: SUMMARIES['erase'],
  description:
    "Replaces worker ID's name by (erased) and its email by nothing, as a new data\n" +
    'version (the change feed shows the worker changed); drops the webhook deliveries\n' +
    'waiting to be sent that name the worker (built again, erased) and the sign-in\n' +
    "server's records holding its name or email; then scrubs the old text out of the\n" +
    'database files (SQLite: the freed space is zeroed and the write-ahead log\n' +
    'truncated; PostgreSQL: every table that can hold it is rewritten). Timesheets,\n' +
    'invoices and reports are left as they are. stdout gets JSON: {workspace, worker,\n' +
    'erased, changed, dataVersion}. An unknown workspace or worker exits 2.',
  flags: {
    db: DB_FLAG,
    workspace: { type: 'string', value: 'W', help: 'the workspace id' },
    worker: { type: 'string', value: 'ID', help: 'the worker id' },
  },
  async run({ values }, config) {
    const workspaceId = requiredId(values.workspace, '--workspace');
    const workerId = requiredId(values.worker, '--worker');
    const store = await openDb(values.db, config);
    try {
      const summary = await eraseWorker(store, workspaceId, workerId);
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    } finally {
      await store.close();
    }
  },
});
