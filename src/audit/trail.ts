import { randomBytes } from 'node:crypto';
import type { AnsweredRequest, AnswerSink } from '../operations/answered.js';
import type { AuditWriterTarget, ChainRecords } from '../store/audit-writer.js';
import { ChainThread } from './chain-thread.js';
import {
  BATCH,
  handedBatchOf,
  LocalChain,
  MAX_WAITING,
  type ChainHead,
  type ChainSink,
  type HandedBatch,
  type PlacedEvent,
  type WriteOutcome,
} from './chain-writer.js';
import { eventOf, type AuditEvent } from './event.js';
import { ClaimSettler, NO_LOOKUP, type IdLookup } from './id-lookup.js';
import type { IdClaim } from './kept-params.js';
import { RefusalCounts, refusalGroupOf, type CountedRefusals } from './refusal-counts.js';

export type { ChainHead } from './chain-writer.js';

/** How long an event may wait in memory before it is written: a crash loses at most this. */
export const FLUSH_MS = 250;
/** How often the server logs each chain's head (DESIGN §4.17: heads kept outside). */
export const HEAD_LOG_MS = 60_000;
/** After a minute ends, when its counted refusals are written (ms). */
const MINUTE_SETTLE_MS = 100;
/** After the store refused a write, or the thread ended, when it is tried again (ms). */
const RETRY_MS = 1000;
/** Threads that ended one after the other before the chain is written on the event loop instead. */
const THREAD_DEATHS = 3;

export interface TrailLog {
  warn(fields: object, message: string): void;
  info?(fields: object, message: string): void;
}

export interface TrailOptions {
  log?: TrailLog;
  now?: () => number;
  /** Whether id parameters name something (DESIGN §4.17); none known without it. */
  ids?: IdLookup;
  /** VMS_READ_AUDIT_REFUSALS_PER_MINUTE. */
  refusalsPerMinute?: number;
  /**
   * Where a thread of its own writes the chain (chain-thread.ts; the store's auditWriterTarget);
   * without it the chain is written on this thread through `records`.
   */
  thread?: AuditWriterTarget | null;
}

/** An answered request waiting to be handed over: its event, its records, its unsettled claims. */
interface Placed extends PlacedEvent {
  claims: IdClaim[];
}

const newChainId = () => `chain_${randomBytes(9).toString('base64url')}`;

/**
 * The access trail (DESIGN §4.17): each answered request becomes an event, fixed in the order
 * requests were answered; refusals are counted per address or caller and minute
 * (refusal-counts.ts) and become one event each when their minute ends. A timer hands what waits
 * over in batches within FLUSH_MS, once the id parameters the answers did not show genuine are
 * settled (one lookup per kind), to the chain's writer (chain-writer.ts), which places, hashes and
 * stores them: on a thread of its own where the store can be opened there (chain-thread.ts; the
 * event loop's share of an event is making it and handing it over), else on this one. `close`
 * writes the rest (SIGTERM), counted refusals included, and logs the heads. One chain per server
 * process: instances over one database never wait on one another to append, and `audit verify`
 * checks each chain. A thread that ends (it crashed) ends its chain: what it had not reported
 * stored is given to a new chain on a new thread.
 */
export class AuditTrail implements AnswerSink {
  private chain: ChainSink;
  /** Answered, not yet handed over (their claims unsettled). */
  private placed: Placed[] = [];
  /** Handed over, not yet stored: given again to a new chain if the thread ends. */
  private given: HandedBatch[] = [];
  private nextBatch = 1;
  /** The last batch the chain's writer was given (0: a new chain's writer has none of `given`). */
  private handedUpTo = 0;
  /** Threads that ended in a row (a chain that stores resets it). */
  private threadDeaths = 0;
  private closed = false;
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
  /** Events dropped by chains before this one. */
  private droppedBefore = 0;
  private droppedNow = 0;

  constructor(
    private readonly records: ChainRecords,
    private readonly options: TrailOptions = {},
  ) {
    this.log = options.log ?? { warn: () => {} };
    this.now = options.now ?? Date.now;
    this.settler = new ClaimSettler(options.ids ?? NO_LOOKUP);
    this.refusals = new RefusalCounts(options.refusalsPerMinute);
    this.chain = this.newChain();
    this.headTimer = setInterval(() => this.logHead(), HEAD_LOG_MS);
    this.headTimer.unref();
  }

  /** This process's chain (a new one after its thread ended). */
  get chainId(): string {
    return this.chain.chainId;
  }

  /** Events dropped because the store refused them for too long (a warning says so). */
  get dropped(): number {
    return this.droppedBefore + this.droppedNow;
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

  /** Hands over every event waiting now and resolves once the writer stored them (or failed). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writing = this.writing
      .then(() => this.handOver())
      .catch((error: unknown) => this.log.warn({ err: error }, 'access trail not written'));
    return this.writing;
  }

  /**
   * SIGTERM: every event answered so far, the minute's counted refusals included, is written
   * before the process ends, the chain's head logged and its thread ended.
   */
  async close(): Promise<void> {
    clearInterval(this.headTimer);
    await this.flushAll();
    // A thread that ended during that flush: the rest goes to the new chain now, not in a second.
    if (this.given.length > 0 && this.handedUpTo === 0) await this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.logHead(true);
    await this.chain.close();
  }

  /** Ends the minute under way (its counted refusals become events), then writes everything. */
  flushAll(): Promise<void> {
    this.endMinute();
    return this.flush();
  }

  /** The chain's writer, on a thread of its own when the store can be opened there. */
  private newChain(): ChainSink {
    const id = newChainId();
    const warn = (fields: object, message: string) => this.log.warn(fields, message);
    const stored = (outcome: WriteOutcome) => this.noteStored(outcome);
    // Threads that keep ending (one that cannot open its store): this one writes it instead.
    const target = this.threadDeaths < THREAD_DEATHS ? this.options.thread : null;
    return target
      ? new ChainThread(target, id, warn, stored)
      : new LocalChain(this.records, id, this.now, warn, stored);
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
    this.placed.push({ event, revealedJson, revealedSet, workers, claims });
    if (!this.closed) this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /**
   * Hands what waits to the chain's writer in batches of BATCH, their claims settled first (a
   * store that cannot settle them keeps them waiting), and notes what it stored. Never rejects.
   */
  private async handOver(): Promise<void> {
    try {
      while (this.placed.length > 0) {
        const placed = this.placed.slice(0, BATCH);
        await this.settler.settle(placed.flatMap((p) => p.claims));
        this.placed = this.placed.slice(placed.length);
        this.given.push(handedBatchOf(this.nextBatch++, placed));
      }
    } catch (error) {
      this.log.warn({ err: error, waiting: this.placed.length }, 'access trail ids not settled');
      this.bound(false);
      this.retry();
    }
    const batches = this.given.filter((batch) => batch.id > this.handedUpTo);
    if (this.given.length === 0) return;
    try {
      this.handedUpTo = this.nextBatch - 1;
      this.noteStored(await this.chain.write(batches));
    } catch (error) {
      // The thread ended: its chain ends at what it stored; what it had not goes to a new one.
      this.log.warn(
        { err: error, waiting: this.givenEvents() },
        'access trail thread ended: its chain ends, a new one takes the rest',
      );
      this.logHead(true);
      await this.chain.close().catch(() => {});
      this.threadDeaths++;
      this.chain = this.newChain();
      this.handedUpTo = 0;
      this.droppedBefore += this.droppedNow;
      this.droppedNow = 0;
      this.bound(true);
      this.retry();
    }
  }

  /** What the chain's writer stored (after each commit, and after each write). */
  private noteStored(outcome: WriteOutcome): void {
    if (outcome.chain !== this.chain.chainId) return;
    if (outcome.head) {
      this.stored = outcome.head;
      this.threadDeaths = 0;
    }
    this.droppedNow = outcome.dropped;
    this.given = this.given.filter((batch) => batch.id > outcome.settled);
    if (outcome.failed) this.retry();
  }

  /**
   * Past MAX_WAITING events kept here that no writer holds (those waiting to be handed over, and
   * with `given` those a thread that ended held), the oldest go; `dropped` counts them.
   */
  private bound(given: boolean): void {
    const held = given ? this.givenEvents() : 0;
    let excess = this.placed.length + held - MAX_WAITING;
    if (excess <= 0) return;
    while (given && excess > 0 && this.given.length > 0) {
      const [oldest] = this.given.splice(0, 1);
      excess -= oldest.events.length;
      this.droppedBefore += oldest.events.length;
    }
    if (excess > 0) {
      this.placed = this.placed.slice(excess);
      this.droppedBefore += excess;
    }
  }

  private givenEvents(): number {
    return this.given.reduce((n, batch) => n + batch.events.length, 0);
  }

  private retry(): void {
    if (!this.closed) this.timer ??= setTimeout(() => void this.flush(), RETRY_MS);
  }

  /** Logs the chain's head at info (DESIGN §4.17): every minute when it moved, and at shutdown. */
  private logHead(always = false): void {
    const head = this.stored;
    if (!head || (!always && head.seq === this.logged?.seq && head.chain === this.logged.chain))
      return;
    this.logged = head;
    this.log.info?.({ chain: head.chain, seq: head.seq, hash: head.hash }, 'access trail head');
  }
}
