import { pino } from 'pino';
import type { Config } from '../config.js';
import { serveStdio } from '../mcp/stdio.js';
import { toolsetOf } from '../mcp/tools.js';
import { OPERATIONS } from '../operations/registry.js';
import { createExecutor, serviceSettings } from '../service.js';
import { openReportFacts } from '../store/open-store.js';
import { dbOf, openDb, parse, required } from './args.js';
import { factsSettings } from './facts-command.js';

/** `vms-read mcp --db D --token T`: MCP over stdio; stdout carries the protocol and nothing else. */
export async function mcpCommand(argv: string[], config: Config): Promise<void> {
  const { values } = parse(argv, { db: { type: 'string' }, token: { type: 'string' } });
  const token = required(values.token ?? config.token, '--token (or VMS_READ_TOKEN)');
  const db = dbOf(values.db, config);
  const store = await openDb(db, config);
  // stdout is the protocol's: failed tool calls are logged to stderr (fd 2), as JSON lines.
  const logger = pino({ level: config.logLevel }, pino.destination({ dest: 2, sync: true }));
  const facts = await openReportFacts(store, db, {
    ...factsSettings(config),
    log: (message, failure) =>
      failure ? logger.warn({ err: failure }, message) : logger.info(message),
  });
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
