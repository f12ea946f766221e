import type { ServerResponse } from 'node:http';
import type { ErrorCode } from '../errors.js';

/**
 * What each client may hold unread (issue 35, item 1). An answer's bytes wait in this process
 * until its client takes them; one pool for the whole server let one client that never reads
 * fill it for everyone. So every request is counted against its client from its arrival (before
 * any work) until its answer is handed over in full or its connection closes, and what a client
 * holds is bounded on its own:
 *
 * - at most `clientPending` of its requests at once, of which at most `clientPipelined` arrived
 *   behind another unanswered request on their connection (a pipelined request's answer can only
 *   wait, in memory, until the ones before it are read);
 * - no new request while its answers hold `clientUnsentBytes` or more, and no answer that would
 *   take it past that while it already holds some (checked when the answer's size is known);
 * - while all clients' answers hold more than `unsentBytes`, no new request from a client holding
 *   more than an even share of it.
 *
 * A client is its token (the Authorization header) on routes that check one, and otherwise its
 * address. A client that reads its answers holds next to nothing, so it is never refused by
 * another's backlog.
 */
export interface UnreadLimits {
  /** VMS_READ_UNSENT_MB × 2^20: all clients' unread answers, default 64 MB. */
  unsentBytes: number;
  /** VMS_READ_CLIENT_UNSENT_MB × 2^20: one client's unread answers, default 16 MB. */
  clientUnsentBytes: number;
  /** VMS_READ_CLIENT_PENDING: one client's requests not yet answered in full, default 256. */
  clientPending: number;
  /** VMS_READ_CLIENT_PIPELINED: of them, those queued behind another on a connection, 16. */
  clientPipelined: number;
}

export const DEFAULT_UNREAD_LIMITS: UnreadLimits = {
  unsentBytes: 64 * 1024 * 1024,
  clientUnsentBytes: 16 * 1024 * 1024,
  clientPending: 256,
  clientPipelined: 16,
};

/** One request of a client, from its arrival until its answer is handed over or abandoned. */
export interface Pending {
  readonly client: Client;
  readonly response: ServerResponse;
  readonly pipelined: boolean;
}

interface Client {
  readonly key: string;
  readonly pending: Set<Pending>;
  pipelined: number;
}

/** The bytes of an answer not yet handed to the system: queued on the response or the socket. */
const unread = (pending: Pending) => pending.response.writableLength;

export class UnreadShares {
  private readonly clients = new Map<string, Client>();
  /** Every client's pending requests, for the total. */
  private readonly all = new Set<Pending>();

  constructor(private readonly limits: UnreadLimits) {}

  /**
   * Admits a request of `key` (counted until `release`), or says why it is refused before any
   * work. `pipelined`: its connection has an earlier request still unanswered.
   */
  admit(key: string, response: ServerResponse, pipelined: boolean): Pending | ErrorCode {
    const client = this.clients.get(key);
    if (client) {
      if (client.pending.size >= this.limits.clientPending) return 'unread_answers';
      if (pipelined && client.pipelined >= this.limits.clientPipelined) return 'unread_answers';
      const held = this.heldBy(client);
      if (held >= this.limits.clientUnsentBytes) return 'unread_answers';
      if (held > 0 && held > this.evenShare()) return 'answers_backlog';
    }
    const admitted = client ?? { key, pending: new Set(), pipelined: 0 };
    if (!client) this.clients.set(key, admitted);
    const pending: Pending = { client: admitted, response, pipelined };
    admitted.pending.add(pending);
    if (pipelined) admitted.pipelined++;
    this.all.add(pending);
    return pending;
  }

  /**
   * Whether an answer of `bytes` may be sent for `pending`: not when its client already holds
   * unread answers and this one would take it past its share (a single answer larger than the
   * share still goes to a client that holds nothing).
   */
  fits(pending: Pending, bytes: number): boolean {
    const held = this.heldBy(pending.client) - unread(pending);
    return held <= 0 || held + bytes <= this.limits.clientUnsentBytes;
  }

  /** The answer was handed over in full, or its connection closed: no longer counted. */
  release(pending: Pending): void {
    if (!this.all.delete(pending)) return;
    const { client } = pending;
    client.pending.delete(pending);
    if (pending.pipelined) client.pipelined--;
    if (client.pending.size === 0) this.clients.delete(client.key);
  }

  /** Requests counted, for tests and metrics. */
  get size(): number {
    return this.all.size;
  }

  private heldBy(client: Client): number {
    let bytes = 0;
    for (const pending of client.pending) bytes += unread(pending);
    return bytes;
  }

  /**
   * Past the total, each client holding answers may hold an even share of it; below the total,
   * any amount (up to its own bound).
   */
  private evenShare(): number {
    let total = 0;
    const holders = new Set<Client>();
    for (const pending of this.all) {
      const bytes = unread(pending);
      if (bytes === 0) continue;
      total += bytes;
      holders.add(pending.client);
    }
    return total > this.limits.unsentBytes ? this.limits.unsentBytes / holders.size : Infinity;
  }
}
