import { ApiError, ReportTimeoutError } from '../errors.js';
import { atDeadline, monotonicNow } from '../deadline.js';

interface Waiter {
  start: () => void;
  cancelTimeout: () => void;
}

/**
 * Admission for report queries, the same for every store: at most `concurrency` run at once (the
 * store's report workers or connections), at most `maxWaiting` wait for a turn, and the rest are
 * answered 503 `unavailable` with Retry-After at once instead of joining an unbounded queue.
 * The time limit counts from the request's receipt, so time spent waiting here is part of it: a
 * waiter whose deadline passes leaves the queue with ReportTimeoutError.
 */
export class ReportGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
  ) {}

  /** Report queries running now, and those waiting for a turn (the metrics endpoint shows both). */
  state(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs `work` with the milliseconds left before `deadline` (a monotonicNow() instant). */
  async run<T>(deadline: number, work: (remainingMs: number) => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) await this.turn(deadline);
    else this.running++;
    try {
      const remaining = deadline - monotonicNow();
      if (remaining <= 0) throw new ReportTimeoutError();
      return await work(remaining);
    } finally {
      this.release();
    }
  }

  private turn(deadline: number): Promise<void> {
    if (this.waiting.length >= this.maxWaiting)
      return Promise.reject(new ApiError('report_capacity', { 'retry-after': '1' }));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          waiter.cancelTimeout();
          resolve();
        },
        cancelTimeout: atDeadline(deadline, () => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new ReportTimeoutError());
        }),
      };
      this.waiting.push(waiter);
    });
  }

  /** Hands the slot to the next waiter, or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.running--;
  }
}
