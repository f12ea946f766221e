/**
 * One webhook request (DESIGN §4.14): POST the body to the URL and say what came back, on node's
 * own http and https clients. The safety rules of a delivery live here:
 *
 * - every address the host is or resolves to when the connection is made is checked again
 *   (`addressRefusal`, the check `webhook create` made), so a name that resolved to a public address at `webhook create` and to
 *   a private one now is refused before any byte is sent (DNS rebinding);
 * - redirects are never followed (node's clients do not): a 3xx is an answer like any non-2xx;
 * - at most `maxResponseBytes` of the answer are read, then the connection is dropped; what it
 *   said is counted, never kept (a receiver may echo the body, names included: DESIGN §4.13);
 * - the whole exchange is bounded by `timeoutMs`, or ends at `endsAt`, and nothing is sent once
 *   that has passed: the request is written only when connected, if it has not (the delivery's
 *   lease covers a try to its end, so a process that stalled past it, whose subscription another
 *   instance may deliver by now, sends nothing).
 *
 * `allowInsecure` (VMS_READ_WEBHOOK_ALLOW_INSECURE=1) lifts the address rules, for tests and
 * private networks. Nothing here logs the body, the headers or the secret.
 */
import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import ipaddr from 'ipaddr.js';
import { addressRefusal, hostOf } from './addresses.js';

export interface PostOptions {
  allowInsecure: boolean;
  /** Default 10 s. */
  timeoutMs?: number;
  /** How much of the answer is read; default 4 KiB. */
  maxResponseBytes?: number;
  /** How a host name resolves when connecting (tests); node's dns.lookup by default. */
  resolve?: (host: string) => Promise<string[]>;
  /** Ends the request at once (the server stopping): the outcome is `{ error: 'stopped' }`. */
  signal?: AbortSignal;
  /**
   * When the exchange ends at the latest, on `clock` (ms): the time limit ends it then (named as
   * `timeoutMs` still), and once it has passed nothing is sent: `{ error: NOT_SENT }`.
   */
  endsAt?: { at: number; clock: () => number };
}

/**
 * What a request came to: an HTTP status and the size of the answer read (at most
 * `maxResponseBytes`), or why there was none.
 */
export type PostOutcome = { status: number; bytes: number } | { error: string };

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** The lookup the connection uses: every address checked, the refusal as a connection error. */
function checkedLookup(options: PostOptions) {
  return (host: string, lookupOptions: { all?: boolean }, callback: LookupCallback) => {
    const resolved = options.resolve
      ? options.resolve(host)
      : new Promise<string[]>((resolve, reject) =>
          systemLookup(host, { all: true, verbatim: true }, (error, addresses) =>
            error ? reject(error) : resolve(addresses.map((a) => a.address)),
          ),
        );
    resolved.then(
      (addresses) => {
        const refusal = options.allowInsecure ? null : addressRefusal(host, addresses);
        if (refusal !== null) {
          callback(Object.assign(new Error(refusal), { code: 'EWEBHOOKADDRESS' }), '');
          return;
        }
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${host} does not resolve`), { code: 'ENOTFOUND' }), '');
          return;
        }
        const all = addresses.map((address) => ({
          address,
          family: ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4,
        }));
        if (lookupOptions.all) callback(null, all);
        else callback(null, all[0].address, all[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/** The error of a request ended because the server stopped. */
export const STOPPED = 'stopped';

/** The error of a request not sent: connected only after its end (`endsAt`; the process stalled). */
export const NOT_SENT = 'not sent: connected after the time limit';

export async function postWebhook(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostOutcome> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxResponseBytes = options.maxResponseBytes ?? 4096;
  // A literal is connected to without a lookup: it is checked here.
  const host = hostOf(url);
  const refusal =
    !options.allowInsecure && ipaddr.isValid(host) ? addressRefusal(host, [host]) : null;
  if (refusal !== null) return { error: refusal };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(outcome);
    };
    const request = client.request(url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      },
      lookup: checkedLookup(options) as never,
      agent: false,
    });
    const { endsAt } = options;
    const timer = setTimeout(
      () => settle({ error: `no answer within ${timeoutMs / 1000} s` }),
      endsAt ? Math.max(0, Math.min(timeoutMs, endsAt.at - endsAt.clock())) : timeoutMs,
    );
    const { signal } = options;
    if (signal?.aborted) settle({ error: STOPPED });
    signal?.addEventListener('abort', () => settle({ error: STOPPED }), { once: true });
    request.on('error', (error: NodeJS.ErrnoException) =>
      settle({
        error:
          error.code === 'EWEBHOOKADDRESS'
            ? error.message
            : `${error.code ?? 'error'}: ${error.message}`,
      }),
    );
    request.on('response', (response) => {
      let read = 0;
      const done = () =>
        settle({ status: response.statusCode ?? 0, bytes: Math.min(read, maxResponseBytes) });
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= maxResponseBytes) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    // Written only once connected: as late as can be, so a stall before is seen.
    request.on('socket', (socket) => {
      const send = () => {
        if (settled) return;
        if (endsAt && endsAt.clock() >= endsAt.at) settle({ error: NOT_SENT });
        else request.end(body);
      };
      if (socket.connecting) socket.once('connect', send);
      else send();
    });
  });
}
