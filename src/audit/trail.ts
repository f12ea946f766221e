import { randomBytes } from 'node:crypto';
import type { AnsweredRequest, AnswerSink } from '../operations/answered.js';
import type { AuditRecords, NewAuditEvent } from '../store/sql/audit/audit-records.js';
import { canonicalEventWith, chainStart, eventHash, eventOf } from './event.js';

/** How long an event may wait in memory before it is written: a crash loses at most this. */
export const FLUSH_MS = 250;
/** Events written in one batch at most (the rest follow in the next). */
const BATCH = 2000;
/** Events kept waiting at most while the store does not take them; past it the oldest are dropped. */
const MAX_WAITING = 100_000;

export interface TrailLog {
  warn(fields: object, message: string): void;
}

/**
 * The access trail's writer (DESIGN §4.17): each answered request becomes an event, hashed at once
 * onto this process's chain (its place and `prev` fixed in the order requests were answered), and
 * kept in memory; a timer writes what waits in batches off the request path, within FLUSH_MS, and
 * `close` writes the rest (SIGTERM). One chain per server process: instances over one database
 * never wait on one another to append, and `audit verify` checks each chain.
 */
export class AuditTrail implements AnswerSink {
  readonly chainId = `chain_${randomBytes(9).toString('base64url')}`;
  private seq = 0;
  private last: string;
  private waiting: NewAuditEvent[] = [];
  private started = false;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  /** Events dropped because the store refused them for too long (a warning says so). */
  dropped = 0;

  constructor(
    private readonly records: AuditRecords,
    private readonly log: TrailLog = { warn: () => {} },
    private readonly now: () => number = Date.now,
  ) {
    this.last = chainStart(this.chainId);
  }

  answered(request: AnsweredRequest): void {
    const { event, revealed } = eventOf(request);
    const json = canonicalEventWith(event, revealed.json);
    const seq = ++this.seq;
    const hash = eventHash(this.last, this.chainId, seq, json);
    this.waiting.push({
      chainId: this.chainId,
      seq,
      at: event.at,
      workspaceId: event.workspace,
      clientId: event.caller?.kind === 'oauth' ? event.caller.clientId : null,
      operation: event.operation,
      revealedSet: revealed.set,
      event: json,
      prev: this.last,
      hash,
      workers: event.workspace === null ? [] : revealed.workers,
    });
    this.last = hash;
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes every event waiting now (one batch after another); resolves once they are stored. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writing = this.writing.then(() => this.writeWaiting());
    return this.writing;
  }

  /** SIGTERM: every event answered so far is written before the process ends. */
  async close(): Promise<void> {
    await this.flush();
  }

  private async writeWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.slice(0, BATCH);
      try {
        if (!this.started) {
          await this.records.startAuditChain({
            chainId: this.chainId,
            startedAt: this.now(),
            anchor: chainStart(this.chainId),
            firstSeq: 1,
          });
          this.started = true;
        }
        await this.records.appendAuditEvents(batch);
        this.waiting = this.waiting.slice(batch.length);
      } catch (error) {
        // Kept, in order, for the next flush; past the bound the oldest go, which verify then
        // shows as a gap in this chain (and the warning says how many).
        if (this.waiting.length > MAX_WAITING) {
          const excess = this.waiting.length - MAX_WAITING;
          this.waiting = this.waiting.slice(excess);
          this.dropped += excess;
        }
        this.log.warn(
          { err: error, waiting: this.waiting.length, dropped: this.dropped },
          'access trail not written',
        );
        this.timer ??= setTimeout(() => void this.flush(), 1000);
        return;
      }
    }
  }
}
