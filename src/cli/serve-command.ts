import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { createServer } from 'node:net';
import type { Config } from '../config.js';
import type { DemoSignIn } from '../oauth-server/interactions.js';
import { withDeadline } from '../deadline.js';
import type { Store } from '../store/store.js';
import { openReportFacts } from '../store/open-store.js';
import { DB_FLAG, dbOf, integerOf, openDb } from './args.js';
import { defineCommand, type Flags } from './command.js';
import { factsSettings } from './facts-command.js';
import { SUMMARIES } from './summaries.js';

export interface Listening {
  app: FastifyInstance;
  baseUrl: string;
}

interface Address {
  host: string;
  port: number;
}

/** The one line for a port another process holds, with the way out. */
export function portInUse({ host, port }: Address): Error {
  return new Error(
    `port ${port} on ${host} is already in use: set PORT or pass --port to choose another`,
  );
}

/**
 * Fails at once, before a store is opened or a demo database seeded, when the port is taken
 * (listen() checks again: another process may take the port in between). Port 0 is never taken.
 */
export function checkPortFree(address: Address): Promise<void> {
  if (address.port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      // Other failures (an address this machine lacks) are left to listen() to report.
      error.code === 'EADDRINUSE' ? reject(portInUse(address)) : resolve(),
    );
    probe.listen(address, () => probe.close(() => resolve()));
  });
}

/**
 * Serves until SIGTERM or SIGINT, then drains: no new connections, idle ones closed at once,
 * requests in flight given VMS_READ_DRAIN_MS (8 s), whatever is left (a client holding a half-sent request, say)
 * closed; the store is closed and the process exits 0, within about ten seconds in all.
 * When it cannot listen (the port taken, an address it may not bind), it closes the app, the
 * columnar copy and the store before it throws: nothing is left open behind the one error line.
 */
export async function listen(
  store: Store,
  db: string,
  address: Address,
  config: Config,
  /** Accounts the built-in authorization server's sign-in page offers (`vms-read demo`). */
  demoAccounts?: readonly DemoSignIn[],
  /**
   * Log lines written as they are logged (`vms-read demo`: they come before the banner it prints
   * on stderr, never inside it); a server logs through pino's asynchronous writer.
   */
  { syncLog = false }: { syncLog?: boolean } = {},
): Promise<Listening> {
  // The copy is prepared before the app exists and followed after: its lines go to the app's
  // log, those from before it held until it is there.
  const logs: { to?: FastifyBaseLogger; early: [string, unknown][] } = { early: [] };
  const write = (to: FastifyBaseLogger, message: string, failure: unknown) =>
    failure ? to.warn({ err: failure }, message) : to.info(message);
  const facts = await openReportFacts(store, db, {
    ...factsSettings(config),
    log: (message, failure) =>
      logs.to ? write(logs.to, message, failure) : logs.early.push([message, failure]),
  });
  // Loaded here, not at start: the other commands start without the server's modules.
  const { createService, serviceSettings, STORE_TIMEOUT_MS, warmService } =
    await import('../service.js');
  const { app, executor } = await createService({
    store,
    facts,
    ...serviceSettings(config),
    demoAccounts,
    logger: syncLog
      ? {
          level: config.logLevel,
          stream: (await import('pino')).default.destination({ dest: 1, sync: true }),
        }
      : { level: config.logLevel },
  });
  logs.to = app.log;
  for (const [message, failure] of logs.early.splice(0)) write(app.log, message, failure);
  // Warm before listening: /healthz answers once the first report costs about what the next do.
  const warm = await warmService(
    { app, executor },
    await store.listWorkspaces(),
    (message, failure) => write(app.log, message, failure),
  );
  app.log.info(`reports warmed: ${warm.queries} queries (${warm.failed} failed) in ${warm.ms} ms`);
  let listening: string;
  try {
    listening = await app.listen(address);
  } catch (error) {
    await app.close().catch(() => {});
    await facts.close().catch(() => {});
    await store.close().catch(() => {});
    throw (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? portInUse(address) : error;
  }
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    try {
      await app.drainAndClose(config.drainMs);
      await facts.close();
      // A connection stuck on a database that stopped answering must not hold the exit.
      await withDeadline(store.close(), STORE_TIMEOUT_MS, () => new Error('store close')).catch(
        () => {},
      );
      process.exit(0);
    } catch (error) {
      console.error(error);
      process.exit(1);
    }
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  return { app, baseUrl: listening.replace('://[::1]', '://localhost') };
}

/**
 * `--host` and `--port`, defaulting to HOST and PORT, then 127.0.0.1 and 8080. A variable set
 * empty counts as unset (an empty HOST would otherwise listen on every interface).
 */
export function hostAndPort(
  values: { host?: string; port?: string },
  config: Config,
  defaultPort = 8080,
) {
  return {
    host: values.host ?? (config.host || '127.0.0.1'),
    port: integerOf(values.port ?? (config.port || undefined), '--port', defaultPort, 0, 65535),
  };
}

/** `--host` and `--port`, shared by serve and demo. */
export const ADDRESS_FLAGS = {
  host: {
    type: 'string',
    value: 'H',
    help: 'the address to listen on (default: HOST, else 127.0.0.1)',
  },
  port: {
    type: 'string',
    value: 'N',
    help: 'the port (default: PORT, else 8080; 0 picks a free one)',
  },
} as const satisfies Flags;

export const serveCommand = defineCommand({
  name: 'serve',
  synopsis: '--db D [--host 127.0.0.1] [--port 8080]',
  summary: SUMMARIES['serve'],
  description:
    'Serves the HTTP API, GET /healthz (200 once ready) and MCP at /mcp on D. SIGTERM or\n' +
    'SIGINT drains requests in flight and exits 0. A port in use is one line and exit 1.',
  flags: { db: DB_FLAG, ...ADDRESS_FLAGS },
  async run({ values }, config) {
    const db = dbOf(values.db, config);
    const address = hostAndPort(values, config);
    await checkPortFree(address);
    const store = await openDb(db, config);
    await listen(store, db, address, config);
  },
});
