import { serveStdio } from '../mcp/stdio.js';
import { toolsetOf } from '../mcp/tools.js';
import { OPERATIONS } from '../operations/registry.js';
import { createExecutor } from '../service.js';
import { openStore } from '../store/open-store.js';
import { dbOf, parse, required } from './args.js';

/** `vms-read mcp --db D --token T`: MCP over stdio; stdout carries the protocol and nothing else. */
export async function mcpCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, { db: { type: 'string' }, token: { type: 'string' } });
  const token = required(values.token ?? process.env.VMS_READ_TOKEN, '--token (or VMS_READ_TOKEN)');
  const store = await openStore(dbOf(values.db));
  const executor = await createExecutor({ store });
  const close = await serveStdio(executor, toolsetOf(OPERATIONS), token);
  const shutdown = async () => {
    await close();
    await store.close();
    process.exit(0);
  };
  process.stdin.once('end', shutdown);
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
