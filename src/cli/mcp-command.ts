import { pino } from 'pino';
import type { Config } from '../config.js';
import { openReportFacts } from '../store/open-store.js';
import { DB_FLAG, dbOf, openDb, TOKEN_FLAG, tokenOf } from './args.js';
import { defineCommand } from './command.js';
import { factsSettings } from './facts-command.js';
import { SUMMARIES } from './summaries.js';

/** `vms-read mcp --db D --token T`: MCP over stdio; stdout carries the protocol and nothing else. */
export const mcpCommand = defineCommand({
  name: 'mcp',
  synopsis: '--db D --token T',
  summary: SUMMARIES['mcp'],
  description:
    'Serves MCP over stdin and stdout as the holder of token T; stdout carries the protocol\n' +
    'and nothing else, the log goes to stderr. Ends when stdin closes.',
  flags: { db: DB_FLAG, token: TOKEN_FLAG },
  run: ({ values }, config) => mcp(values, config),
});

async function mcp(values: { db?: string; token?: string }, config: Config): Promise<void> {
  const token = tokenOf(values.token, config);
  const db = dbOf(values.db, config);
  const store = await openDb(db, config);
  // stdout is the protocol's: failed tool calls are logged to stderr (fd 2), as JSON lines.
  const logger = pino({ level: config.logLevel }, pino.destination({ dest: 2, sync: true }));
  const facts = await openReportFacts(store, db, {
    ...factsSettings(config),
    log: (message, failure) =>
      failure ? logger.warn({ err: failure }, message) : logger.info(message),
  });
  // Loaded here, not at start: the other commands start without the server's modules.
  const [{ serveStdio }, { toolsetOf }, { OPERATIONS }, { createExecutor, serviceSettings }] =
    await Promise.all([
      import('../mcp/stdio.js'),
      import('../mcp/tools.js'),
      import('../operations/registry.js'),
      import('../service.js'),
    ]);
  // No port to serve /metrics on: VMS_READ_METRICS counts nothing here.
  const executor = await createExecutor({
    store,
    facts,
    ...serviceSettings(config),
    metrics: false,
    quotaLog: logger,
  });
  const close = await serveStdio(executor, toolsetOf(OPERATIONS), token, logger);
  const shutdown = async () => {
    await close();
    await executor.close();
    await facts.close();
    await store.close();
    process.exit(0);
  };
  process.stdin.once('end', shutdown);
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
