/**
 * A webhook receiver for tests: a real HTTP server on loopback that verifies every request with
 * the `standardwebhooks` package, as an integrator's receiver would, and answers as the test
 * scripts it (a status, an echo of the records it was sent, or silence until the sender gives up).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A delivery's body as DESIGN §4.14 fixes it. */
export interface ChangesBody {
  type: 'vms.changes';
  subscription: string;
  dataVersion: number;
  items: { type: string; id: string; version: number; record: unknown; removed?: unknown }[];
  nextCursor: string;
}

export interface Received {
  path: string;
  id: string;
  timestamp: number;
  body: ChangesBody;
  raw: string;
  /** False when the signature did not verify under the path's secret. */
  verified: boolean;
  headers: IncomingHttpHeaders;
  at: number;
  /** The body it answered with. */
  answer: string;
}

/**
 * How to answer one request: a status, a status with an echo of what it was sent (its text values
 * first, then the whole body, as a receiver's refusal may quote what it refused, names included),
 * a status once `after` settles (a receiver as slow as the test makes it: recorded on arrival,
 * answered when the test says), or never (the sender's time limit ends it).
 */
export type Answer =
  number | { status: number; echo: true } | { status: number; after: Promise<unknown> } | 'silent';

export interface Receiver {
  /** `http://127.0.0.1:port` */
  base: string;
  received: Received[];
  /** The secret the requests on `path` are verified with. */
  secretFor(path: string, secret: string): void;
  /** Answers the next requests on `path` so, in order; then 204. */
  script(path: string, ...answers: Answer[]): void;
  /** Resolves once `predicate` holds of what was received (polled), or rejects after `ms`. */
  until(predicate: (received: Received[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** Every provenance envelope's `value` in `data` (names and emails among them), in order. */
function textValues(data: unknown): string[] {
  if (Array.isArray(data)) return data.flatMap(textValues);
  if (data === null || typeof data !== 'object') return [];
  const object = data as Record<string, unknown>;
  if (object.kind === 'vms.provenance' && typeof object.value === 'string') return [object.value];
  return Object.values(object).flatMap(textValues);
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const secrets = new Map<string, string>();
  const scripts = new Map<string, Answer[]>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      const raw = Buffer.concat(chunks).toString('utf8');
      const secret = secrets.get(path);
      let verified = false;
      if (secret) {
        try {
          new Webhook(secret).verify(raw, request.headers as Record<string, string>);
          verified = true;
        } catch {
          verified = false;
        }
      }
      const body = JSON.parse(raw) as ChangesBody;
      const answer = scripts.get(path)?.shift() ?? 204;
      const said =
        typeof answer === 'object' && 'echo' in answer
          ? `refused ${textValues(body.items).join(', ')}: ${raw}`
          : typeof answer === 'number' && answer >= 300
            ? 'no thanks'
            : '';
      received.push({
        path,
        id: String(request.headers['webhook-id']),
        timestamp: Number(request.headers['webhook-timestamp']),
        body,
        raw,
        verified,
        headers: request.headers,
        at: Date.now(),
        answer: said,
      });
      if (typeof answer === 'object' && 'after' in answer)
        void answer.after.then(() => response.writeHead(answer.status).end());
      else if (answer !== 'silent')
        response.writeHead(typeof answer === 'object' ? answer.status : answer).end(said);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    secretFor: (path, secret) => secrets.set(path, secret),
    script: (path, ...answers) => scripts.set(path, [...(scripts.get(path) ?? []), ...answers]),
    async until(predicate, ms = 15_000) {
      const end = Date.now() + ms;
      while (!predicate(received)) {
        if (Date.now() > end)
          throw new Error(
            `the receiver did not get what was awaited in ${ms} ms (${received.length} received)`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
