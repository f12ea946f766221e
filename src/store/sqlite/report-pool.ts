import { Worker } from 'node:worker_threads';
import { ReportTimeoutError } from '../../errors.js';
import type { Row } from '../store.js';

interface Job {
  id: number;
  sql: string;
  params: unknown[];
  timeoutMs: number;
  resolve: (rows: Row[]) => void;
  reject: (error: Error) => void;
}

/** Report worker threads (each with its own read-only connection). */
export const REPORT_WORKERS = 2;

/**
 * A worker that has prepared this many statements is replaced. better-sqlite3 frees a statement
 * only when V8 collects it, and a worker's heap sees few full collections, so statements its
 * bounded cache dropped would hold native memory for long; ending the worker frees all of it.
 */
export const RECYCLE_AFTER_PREPARED = 1000;

/**
 * A few worker threads, each with a read-only connection, that run report queries with a time
 * limit. A query past its limit is answered with ReportTimeoutError at once and its worker is
 * terminated and replaced, so the server never waits on it.
 */
export class ReportPool {
  private readonly idle: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly workers = new Set<Worker>();
  private nextId = 1;
  private closed = false;
  /** Workers ended so far (past their time limit, or after preparing many statements). */
  retired = 0;
  /** Prepared statements each worker last reported holding. */
  private readonly statementCounts = new WeakMap<Worker, number>();

  constructor(
    private readonly path: string,
    private readonly size = REPORT_WORKERS,
  ) {}

  run(sql: string, params: unknown[], timeoutMs: number): Promise<Row[]> {
    if (this.closed) return Promise.reject(new Error('report pool closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, sql, params, timeoutMs, resolve, reject });
      this.dispatch();
    });
  }

  /** The most prepared statements any live worker holds (its cache is bounded). */
  largestStatementCache(): number {
    return Math.max(0, ...[...this.workers].map((w) => this.statementCounts.get(w) ?? 0));
  }

  /** Workers alive, those idle, and queries waiting for one. */
  state(): { total: number; idle: number; waiting: number } {
    return { total: this.workers.size, idle: this.idle.length, waiting: this.queue.length };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('report pool closed'));
    await Promise.all([...this.workers].map((w) => w.terminate()));
    this.workers.clear();
    this.idle.length = 0;
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./report-worker.js', import.meta.url), {
      workerData: { path: this.path },
    });
    worker.unref();
    this.workers.add(worker);
    return worker;
  }

  /** Ends a worker (its connection and all it holds); the next dispatch spawns a fresh one. */
  private retire(worker: Worker): void {
    this.retired++;
    this.workers.delete(worker);
    void worker.terminate();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.workers.size < this.size ? this.spawn() : undefined);
      if (!worker) return;
      this.start(worker, this.queue.shift() as Job);
    }
  }

  private start(worker: Worker, job: Job): void {
    const finish = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
    };
    const onMessage = (message: {
      id: number;
      rows?: Row[];
      error?: string;
      statements: number;
      prepared: number;
    }) => {
      if (message.id !== job.id) return;
      finish();
      this.statementCounts.set(worker, message.statements);
      if (message.prepared >= RECYCLE_AFTER_PREPARED) this.retire(worker);
      else this.idle.push(worker);
      if (message.error !== undefined) job.reject(new Error(message.error));
      else job.resolve(message.rows ?? []);
      this.dispatch();
    };
    const onError = (error: Error) => {
      finish();
      this.workers.delete(worker);
      job.reject(error);
      this.dispatch();
    };
    const timer = setTimeout(() => {
      finish();
      this.retire(worker);
      job.reject(new ReportTimeoutError());
      this.dispatch();
    }, job.timeoutMs);
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.postMessage({ id: job.id, sql: job.sql, params: job.params });
  }
}
