import { randomBytes } from 'node:crypto';
import type { AnsweredRequest, AnswerSink } from '../operations/answered.js';
import type { AuditRecords, NewAuditEvent } from '../store/sql/audit/audit-records.js';
import { setReference } from '../store/sql/audit/set-records.js';
import { canonicalEventWith, chainStart, eventHash, eventOf, type AuditEvent } from './event.js';
import { ClaimSettler, NO_LOOKUP, type IdLookup } from './id-lookup.js';
import type { IdClaim } from './kept-params.js';
import { RefusalCounts, refusalGroupOf, type CountedRefusals } from './refusal-counts.js';

/** How long an event may wait in memory before it is written: a crash loses at most this. */
export const FLUSH_MS = 250;
/** How often the server logs each chain's head (DESIGN §4.17: heads kept outside). */
export const HEAD_LOG_MS = 60_000;
/** Events written in one batch at most (the rest follow in the next). */
const BATCH = 2000;
/** Events kept waiting at most while the store does not take them; past it the oldest are dropped. */
const MAX_WAITING = 100_000;
/** After a minute ends, when its counted refusals are written (ms). */
const MINUTE_SETTLE_MS = 100;

export interface TrailLog {
  warn(fields: object, message: string): void;
  info?(fields: object, message: string): void;
}

/** A chain's head: its last written event's place and hash. */
export interface ChainHead {
  chain: string;
  seq: number;
  hash: string;
}

export interface TrailOptions {
  log?: TrailLog;
  now?: () => number;
  /** Whether id parameters name something (DESIGN §4.17); none known without it. */
  ids?: IdLookup;
  /** VMS_READ_AUDIT_REFUSALS_PER_MINUTE. */
  refusalsPerMinute?: number;
}

/** An event with its place, waiting for its claims to be settled and its hash. */
interface Placed {
  seq: number;
  event: AuditEvent;
  revealedJson: string;
  revealedSet: string | null;
  workers: readonly string[];
  claims: IdClaim[];
}

/**
 * The access trail's writer (DESIGN §4.17): each answered request becomes an event with its place
 * in this process's chain, fixed in the order requests were answered; refusals are counted per
 * address or caller and minute (refusal-counts.ts) and written as one event each when their
 * minute ends. A timer writes what waits in batches off the request path, within FLUSH_MS: it
 * settles the id parameters the answers did not show genuine (one lookup per kind), hashes each
 * event onto the chain in order, and stores them; `close` writes the rest (SIGTERM), counted
 * refusals included, and logs the heads. One chain per server process: instances over one database
 * never wait on one another to append, and `audit verify` checks each chain.
 */
export class AuditTrail implements AnswerSink {
  readonly chainId = `chain_${randomBytes(9).toString('base64url')}`;
  private seq = 0;
  private last: string;
  /** Placed, not yet hashed (their claims unsettled). */
  private placed: Placed[] = [];
  /** Hashed, not yet stored. */
  private waiting: NewAuditEvent[] = [];
  private started = false;
  private timer: NodeJS.Timeout | null = null;
  private minuteTimer: NodeJS.Timeout | null = null;
  /** The end of the minute whose counted refusals minuteTimer writes. */
  private minuteEnd = -1;
  private readonly headTimer: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  private readonly refusals: RefusalCounts;
  private readonly settler: ClaimSettler;
  private readonly log: TrailLog;
  private readonly now: () => number;
  /** The last event stored: what the head log says. */
  private stored: ChainHead | null = null;
  private logged: ChainHead | null = null;
  /** Events dropped because the store refused them for too long (a warning says so). */
  dropped = 0;

  constructor(
    private readonly records: AuditRecords,
    options: TrailOptions = {},
  ) {
    this.last = chainStart(this.chainId);
    this.log = options.log ?? { warn: () => {} };
    this.now = options.now ?? Date.now;
    this.settler = new ClaimSettler(options.ids ?? NO_LOOKUP);
    this.refusals = new RefusalCounts(options.refusalsPerMinute);
    this.headTimer = setInterval(() => this.logHead(), HEAD_LOG_MS);
    this.headTimer.unref();
  }

  answered(request: AnsweredRequest): void {
    const group = refusalGroupOf(request);
    if (group !== null) {
      for (const counted of this.refusals.count(request, group)) this.placeCounted(counted);
      const endsAt = this.refusals.endsAt ?? this.now();
      if (this.minuteEnd !== endsAt) {
        if (this.minuteTimer) clearTimeout(this.minuteTimer);
        this.minuteEnd = endsAt;
        this.minuteTimer = setTimeout(
          () => this.endMinute(),
          endsAt - this.now() + MINUTE_SETTLE_MS,
        );
        this.minuteTimer.unref();
      }
      return;
    }
    const { event, revealed, claims } = eventOf(request);
    this.place(event, revealed.json, revealed.set, revealed.workers, claims);
  }

  /** The head of what is stored: the chain, its last stored event's place and hash. */
  head(): ChainHead | null {
    return this.stored;
  }

  /** Writes every event waiting now (one batch after another); resolves once they are stored. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writing = this.writing.then(() => this.writeWaiting());
    return this.writing;
  }

  /**
   * SIGTERM: every event answered so far, the minute's counted refusals included, is written
   * before the process ends, and the chain's head logged.
   */
  async close(): Promise<void> {
    clearInterval(this.headTimer);
    await this.flushAll();
    this.logHead(true);
  }

  /** Ends the minute under way (its counted refusals become events), then writes everything. */
  flushAll(): Promise<void> {
    this.endMinute();
    return this.flush();
  }

  /** The minute's counted refusals, as events (its end, or shutdown). */
  private endMinute(): void {
    if (this.minuteTimer) clearTimeout(this.minuteTimer);
    this.minuteTimer = null;
    this.minuteEnd = -1;
    for (const counted of this.refusals.take()) this.placeCounted(counted);
  }

  private placeCounted({ first, count, by }: CountedRefusals): void {
    const { event, revealed } = eventOf(first);
    event.count = count;
    event.countedBy = by;
    if (by === 'rest') {
      // The rest came from anyone: no one of them is named.
      Object.assign(event, { address: null, userAgent: null, caller: null, workspace: null });
      Object.assign(event, { role: null, worker: null, supplier: null });
    }
    this.place(event, revealed.json, null, [], []);
  }

  private place(
    event: AuditEvent,
    revealedJson: string,
    revealedSet: string | null,
    workers: readonly string[],
    claims: IdClaim[],
  ): void {
    this.placed.push({ seq: ++this.seq, event, revealedJson, revealedSet, workers, claims });
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Settles the placed events' claims and hashes them onto the chain, in order. */
  private async hashPlaced(): Promise<void> {
    const batch = this.placed.slice(0, BATCH);
    await this.settler.settle(batch.flatMap((placed) => placed.claims));
    for (const { seq, event, revealedJson, revealedSet, workers } of batch) {
      // Its records by set: they are written once a day per set, not with every event.
      const json = canonicalEventWith(
        event,
        revealedSet === null ? revealedJson : setReference(revealedSet),
      );
      const hash = eventHash(this.last, this.chainId, seq, json);
      this.waiting.push({
        chainId: this.chainId,
        seq,
        at: event.at,
        workspaceId: event.workspace,
        clientId: event.caller?.kind === 'oauth' ? event.caller.clientId : null,
        operation: event.operation,
        revealedSet,
        records: revealedSet === null ? null : revealedJson,
        event: json,
        prev: this.last,
        hash,
        workers: event.workspace === null ? [] : workers,
      });
      this.last = hash;
    }
    this.placed = this.placed.slice(batch.length);
  }

  private async writeWaiting(): Promise<void> {
    while (this.placed.length > 0 || this.waiting.length > 0) {
      try {
        if (this.waiting.length === 0) await this.hashPlaced();
        const batch = this.waiting.slice(0, BATCH);
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
        const lastStored = batch[batch.length - 1];
        this.stored = { chain: this.chainId, seq: lastStored.seq, hash: lastStored.hash };
        this.waiting = this.waiting.slice(batch.length);
      } catch (error) {
        // Kept, in order, for the next flush; past the bound the oldest go, which verify then
        // shows as a gap in this chain (and the warning says how many).
        this.dropOldest();
        this.log.warn(
          {
            err: error,
            waiting: this.waiting.length + this.placed.length,
            dropped: this.dropped,
          },
          'access trail not written',
        );
        this.timer ??= setTimeout(() => void this.flush(), 1000);
        return;
      }
    }
  }

  private dropOldest(): void {
    let excess = this.waiting.length + this.placed.length - MAX_WAITING;
    if (excess <= 0) return;
    const fromWaiting = Math.min(excess, this.waiting.length);
    this.waiting = this.waiting.slice(fromWaiting);
    excess -= fromWaiting;
    // Placed events dropped before they were hashed: the next one hashed follows the last kept.
    this.placed = this.placed.slice(excess);
    this.dropped += fromWaiting + excess;
  }

  /** Logs the chain's head at info (DESIGN §4.17): every minute when it moved, and at shutdown. */
  private logHead(always = false): void {
    const head = this.stored;
    if (!head || (!always && head.seq === this.logged?.seq)) return;
    this.logged = head;
    this.log.info?.({ chain: head.chain, seq: head.seq, hash: head.hash }, 'access trail head');
  }
}
