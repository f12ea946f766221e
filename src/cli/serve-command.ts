import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { withDeadline } from '../deadline.js';
import { createService, serviceSettings, STORE_TIMEOUT_MS } from '../service.js';
import type { Store } from '../store/store.js';
import { openReportFacts } from '../store/open-store.js';
import { dbOf, integerOf, openDb, parse } from './args.js';
import { factsSettings } from './facts-command.js';

export interface Listening {
  app: FastifyInstance;
  baseUrl: string;
}

/** How long requests in flight may take to finish once SIGTERM arrives (DESIGN §5). */
export const DRAIN_MS = 8000;

/**
 * Serves until SIGTERM or SIGINT, then drains: no new connections, idle ones closed at once,
 * requests in flight given DRAIN_MS, whatever is left (a client holding a half-sent request, say)
 * closed; the store is closed and the process exits 0, within about ten seconds in all.
 */
export async function listen(
  store: Store,
  db: string,
  address: { host: string; port: number },
  config: Config,
): Promise<Listening> {
  // The copy may open or be written after the app exists: its lines go to the app's log.
  const logs: { to?: FastifyBaseLogger } = {};
  const facts = await openReportFacts(store, db, {
    ...factsSettings(config),
    log: (message, failure) =>
      failure ? logs.to?.warn({ err: failure }, message) : logs.to?.info(message),
  });
  const { app } = await createService({
    store,
    facts,
    ...serviceSettings(config),
    logger: { level: config.logLevel },
  });
  logs.to = app.log;
  const listening = await app.listen(address);
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    try {
      await app.drainAndClose(DRAIN_MS);
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

/** `--host` and `--port`, defaulting to HOST and PORT, then 127.0.0.1 and 8080. */
export function hostAndPort(
  values: { host?: string; port?: string },
  config: Config,
  defaultPort = 8080,
) {
  return {
    host: values.host ?? config.host ?? '127.0.0.1',
    port: integerOf(values.port ?? config.port, '--port', defaultPort, 0, 65535),
  };
}

export async function serveCommand(argv: string[], config: Config): Promise<void> {
  const { values } = parse(argv, {
    db: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
  });
  const db = dbOf(values.db, config);
  const store = await openDb(db, config);
  await listen(store, db, hostAndPort(values, config), config);
}
