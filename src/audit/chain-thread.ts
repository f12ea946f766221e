import { Worker } from 'node:worker_threads';
import type { AuditWriterTarget } from '../store/audit-writer.js';
import type { ChainSink, HandedBatch, WarnOf, WriteOutcome } from './chain-writer.js';

interface Pending {
  resolve: (outcome: WriteOutcome) => void;
  reject: (error: Error) => void;
}

/** A thread's answer to a write: its outcome, or why it could not write at all. */
type Answer =
  | { id: number; outcome: WriteOutcome }
  | { id: number; error: { message: string; code?: string } }
  | { progress: WriteOutcome }
  | { warn: object; message: string };

/** How long a closing thread may take to finish and end before it is stopped (ms). */
const CLOSE_MS = 5000;

/**
 * A chain written on a thread of its own (issue 59, "the trail as a log"): the thread
 * (chain-thread-entry.ts) makes each event's canonical JSON, hashes it onto the chain and appends
 * batches through a connection of its own, so that the server's event loop only makes the event
 * and hands it over. Started at the first write; it keeps the process alive only while a write is
 * under way. A thread that ends rejects what it was given (the trail starts a chain on another).
 */
export class ChainThread implements ChainSink {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private ended: Error | null = null;

  constructor(
    private readonly target: AuditWriterTarget,
    readonly chainId: string,
    private readonly warn: WarnOf,
    private readonly progress: (outcome: WriteOutcome) => void = () => {},
  ) {}

  write(batches: readonly HandedBatch[]): Promise<WriteOutcome> {
    if (this.ended) return Promise.reject(this.ended);
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, batches });
    });
  }

  /**
   * Lets the thread finish what it was given, close its connection and end; stopped after
   * CLOSE_MS (a database that does not answer must not hold the server's shutdown).
   */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.ended) return;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.ref();
    worker.postMessage('close');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, CLOSE_MS, 'late')));
    if ((await Promise.race([exited, late])) === 'late') await worker.terminate();
    clearTimeout(timer);
  }

  /** Ends the thread at once, what it was given with it (tests: a thread that dies). */
  async terminate(): Promise<void> {
    await this.worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(new URL('./chain-thread-entry.js', import.meta.url), {
      workerData: { target: this.target, chainId: this.chainId },
      // Its young generation as small as the server's own (`--max-semi-space-size=4`): V8's
      // default for a thread kept 15-20 MB more resident under the bench (memory-parts.mjs).
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    worker.unref();
    worker.on('message', (answer: Answer) => {
      if ('warn' in answer) {
        this.warn(answer.warn, answer.message);
        return;
      }
      if ('progress' in answer) {
        this.progress(answer.progress);
        return;
      }
      const job = this.pending.get(answer.id);
      if (!job) return;
      this.pending.delete(answer.id);
      if (this.pending.size === 0) worker.unref();
      if ('outcome' in answer) job.resolve(answer.outcome);
      else job.reject(Object.assign(new Error(answer.error.message), answer.error));
    });
    const fail = (error: Error) => {
      this.ended ??= error;
      for (const job of this.pending.values()) job.reject(this.ended);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('access trail thread ended')));
    return worker;
  }
}
