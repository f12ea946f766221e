import type { AuditRecords, NewAuditEvent } from '../store/sql/audit/audit-records.js';
import { setReference } from '../store/sql/audit/set-records.js';
import { canonicalEventWith, chainStart, eventHash, type AuditEvent } from './event.js';

/** Events written in one batch at most (the rest follow in the next). */
export const BATCH = 2000;
/** Events kept waiting at most while the store does not take them; past it the oldest are dropped. */
export const MAX_WAITING = 100_000;

/** A chain's head: its last written event's place and hash. */
export interface ChainHead {
  chain: string;
  seq: number;
  hash: string;
}

/**
 * An answered request as the trail hands it to its chain's writer: the event with its claims
 * settled and `revealed` left out (null: its JSON is the set's, or `inline`), the set it revealed.
 */
export interface HandedEvent {
  event: AuditEvent;
  set: string | null;
  /** The records' canonical JSON when they are not named by set (`[]`, unless a caller says). */
  inline?: string;
}

/**
 * A batch handed over in order: its events and, once each, the sets they name (the records'
 * canonical JSON and the workers they name): a cached page sent again is one set, not one copy
 * per event. `id` counts batches from 1 in the order they are handed over.
 */
export interface HandedBatch {
  id: number;
  events: HandedEvent[];
  sets: [set: string, json: string, workers: readonly string[]][];
}

/** What a write left: the head stored, the batches all of whose events are stored or dropped. */
export interface WriteOutcome {
  chain: string;
  head: ChainHead | null;
  /** Every batch up to this id is done with (stored, or dropped past MAX_WAITING). */
  settled: number;
  /** Events taken and not yet stored (they are tried again on the next write). */
  pending: number;
  dropped: number;
  /** The store refused the last try (the writer keeps what it had, to try again). */
  failed: boolean;
}

/** Where a chain's events are written: in this thread, or on a thread of its own (chain-thread.ts). */
export interface ChainSink {
  /** The chain it writes. */
  readonly chainId: string;
  /** Takes `batches` (none: tries again what waits) and writes what waits, in order. */
  write(batches: readonly HandedBatch[]): Promise<WriteOutcome>;
  close(): Promise<void>;
}

export type WarnOf = (fields: object, message: string) => void;

/** An answered request's event as the trail holds it until it hands it over. */
export interface PlacedEvent {
  event: AuditEvent;
  revealedJson: string;
  revealedSet: string | null;
  workers: readonly string[];
}

/**
 * The batch `id` of `placed` (their claims settled): each event without its records (its set's
 * JSON and workers once a batch), so that handing it to a thread clones little.
 */
export function handedBatchOf(id: number, placed: readonly PlacedEvent[]): HandedBatch {
  const sets = new Map<string, [string, string, readonly string[]]>();
  const events = placed.map(({ event, revealedJson, revealedSet, workers }): HandedEvent => {
    if (revealedSet !== null && !sets.has(revealedSet))
      sets.set(revealedSet, [revealedSet, revealedJson, workers]);
    // Its records are its set's (or `inline`): the event carries none of them.
    (event as { revealed: unknown }).revealed = null;
    return revealedSet === null && revealedJson !== '[]'
      ? { event, set: null, inline: revealedJson }
      : { event, set: revealedSet };
  });
  return { id, events, sets: [...sets.values()] };
}

interface Taken {
  batch: number;
  seq: number;
  event: HandedEvent;
  json: string;
  workers: readonly string[];
}

/**
 * A chain's writer (DESIGN §4.17): takes handed events in order, gives each its place, makes its
 * canonical JSON and hashes it onto the chain, and appends them in batches (one transaction each).
 * What the store refuses is kept, in order, for the next write; past MAX_WAITING the oldest go,
 * which `audit verify` shows as a gap in the chain (and the warning says how many). It runs where
 * the trail puts it: on the trail's thread (chain-thread.ts), or beside the trail itself.
 */
export class ChainWriter {
  private seq = 0;
  private last: string;
  private started = false;
  /** Taken, not yet hashed. */
  private taken: Taken[] = [];
  /** Hashed, not yet stored; `batch` is the handed batch each came in. */
  private waiting: { batch: number; row: NewAuditEvent }[] = [];
  private lastBatch = 0;
  private stored: ChainHead | null = null;
  dropped = 0;

  constructor(
    private readonly records: Pick<AuditRecords, 'startAuditChain' | 'appendAuditEvents'>,
    readonly chainId: string,
    private readonly now: () => number,
    private readonly warn: WarnOf,
    private readonly maxWaiting = MAX_WAITING,
    /** Told after each append that stored (the trail then forgets what it need not give again). */
    private readonly onStored: (outcome: WriteOutcome) => void = () => {},
  ) {
    this.last = chainStart(chainId);
  }

  take(batch: HandedBatch): void {
    const sets = new Map(batch.sets.map(([set, json, workers]) => [set, { json, workers }]));
    for (const event of batch.events) {
      const known = event.set === null ? undefined : sets.get(event.set);
      this.taken.push({
        batch: batch.id,
        seq: ++this.seq,
        event,
        json: known?.json ?? event.inline ?? '[]',
        workers: known?.workers ?? [],
      });
    }
    this.lastBatch = batch.id;
  }

  async write(): Promise<WriteOutcome> {
    while (this.taken.length > 0 || this.waiting.length > 0) {
      try {
        if (this.waiting.length === 0) this.hashTaken();
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
        await this.records.appendAuditEvents(batch.map((waiting) => waiting.row));
        const lastStored = batch[batch.length - 1].row;
        this.stored = { chain: this.chainId, seq: lastStored.seq, hash: lastStored.hash };
        this.waiting = this.waiting.slice(batch.length);
        this.onStored(this.outcome(false));
      } catch (error) {
        this.dropOldest();
        this.warn(
          { err: error, waiting: this.pending(), dropped: this.dropped },
          'access trail not written',
        );
        return this.outcome(true);
      }
    }
    return this.outcome(false);
  }

  private pending(): number {
    return this.waiting.length + this.taken.length;
  }

  private outcome(failed: boolean): WriteOutcome {
    const oldest = this.waiting[0]?.batch ?? this.taken[0]?.batch;
    return {
      chain: this.chainId,
      head: this.stored,
      settled: oldest === undefined ? this.lastBatch : oldest - 1,
      pending: this.pending(),
      dropped: this.dropped,
      failed,
    };
  }

  /** Hashes what was taken onto the chain, in order (its records by set: written once a day). */
  private hashTaken(): void {
    const batch = this.taken.slice(0, BATCH);
    for (const { batch: handed, seq, event: handedEvent, json, workers } of batch) {
      const { event, set } = handedEvent;
      const eventJson = canonicalEventWith(event, set === null ? json : setReference(set));
      const hash = eventHash(this.last, this.chainId, seq, eventJson);
      this.waiting.push({
        batch: handed,
        row: {
          chainId: this.chainId,
          seq,
          at: event.at,
          workspaceId: event.workspace,
          clientId: event.caller?.kind === 'oauth' ? event.caller.clientId : null,
          operation: event.operation,
          revealedSet: set,
          records: set === null ? null : json,
          event: eventJson,
          prev: this.last,
          hash,
          workers: event.workspace === null ? [] : workers,
        },
      });
      this.last = hash;
    }
    this.taken = this.taken.slice(batch.length);
  }

  private dropOldest(): void {
    let excess = this.pending() - this.maxWaiting;
    if (excess <= 0) return;
    const fromWaiting = Math.min(excess, this.waiting.length);
    this.waiting = this.waiting.slice(fromWaiting);
    excess -= fromWaiting;
    // Taken events dropped before they were hashed: the next one hashed follows the last kept.
    this.taken = this.taken.slice(excess);
    this.dropped += fromWaiting + excess;
  }
}

/** A chain written beside the trail, on its own event loop (a store no other thread can open). */
export class LocalChain implements ChainSink {
  readonly writer: ChainWriter;
  readonly chainId: string;

  constructor(
    records: Pick<AuditRecords, 'startAuditChain' | 'appendAuditEvents'>,
    chainId: string,
    now: () => number,
    warn: WarnOf,
    onStored?: (outcome: WriteOutcome) => void,
  ) {
    this.chainId = chainId;
    this.writer = new ChainWriter(records, chainId, now, warn, MAX_WAITING, onStored);
  }

  write(batches: readonly HandedBatch[]): Promise<WriteOutcome> {
    for (const batch of batches) this.writer.take(batch);
    return this.writer.write();
  }

  async close(): Promise<void> {}
}
