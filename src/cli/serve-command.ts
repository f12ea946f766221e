import type { FastifyInstance } from 'fastify';
import { withDeadline } from '../deadline.js';
import { createService, STORE_TIMEOUT_MS } from '../service.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { dbOf, integerOf, parse } from './args.js';

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
export async function listen(store: Store, host: string, port: number): Promise<Listening> {
  const { app } = await createService({
    store,
    logger: { level: process.env.LOG_LEVEL ?? 'info' },
  });
  const address = await app.listen({ host, port });
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    try {
      await app.drainAndClose(DRAIN_MS);
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
  return { app, baseUrl: address.replace('://[::1]', '://localhost') };
}

export function hostAndPort(values: { host?: string; port?: string }, defaultPort = 8080) {
  return {
    host: values.host ?? process.env.HOST ?? '127.0.0.1',
    port: integerOf(values.port ?? process.env.PORT, '--port', defaultPort, 0, 65535),
  };
}

export async function serveCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    db: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
  });
  const { host, port } = hostAndPort(values);
  const store = await openStore(dbOf(values.db));
  await listen(store, host, port);
}
