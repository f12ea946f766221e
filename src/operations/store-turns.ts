import { atDeadline } from '../deadline.js';

interface Waiter {
  start: () => void;
  cancelTimeout: () => void;
}

/**
 * Turns at the store for the operations that read records, shared between clients in turn
 * (issue 56). A store with a pool of connections answers as many reads at once as it has
 * connections, and its pool serves whoever asked first: sixty connections of one token asking
 * for a large timesheet queued a hundred queries ahead of another token's page of workers, which
 * then waited past its 2 s (503) while the first token's answers were built. Here at most
 * `concurrency` operations run at once (the pool's size); the others wait, each client's in a
 * queue of its own, and a freed turn goes to the waiting client served least recently (one never
 * served first, then the first to wait): another client's request waits for one operation to
 * end, not for a flood of them, and clients that all flood take turns. A waiter whose deadline
 * passes leaves with `late()` (503), its work never started.
 */
export class StoreTurns {
  private running = 0;
  /** Each client's waiting operations, oldest first; the clients in the order they came to wait. */
  private readonly waiting = new Map<string, Waiter[]>();
  /** Turns given so far: a clock for which client was served least recently. */
  private given = 0;
  /** Clients with operations running or waiting: how many, and the turn one last started at. */
  private readonly clients = new Map<string, { active: number; servedAt: number }>();

  constructor(readonly concurrency: number) {}

  /** Operations running now, and those waiting for a turn. */
  state(): { running: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.waiting.values()) waiting += queue.length;
    return { running: this.running, waiting };
  }

  /**
   * Runs `work` for `client` in its turn; rejects with `late()` at `deadline` (a monotonicNow()
   * instant) if its turn has not come by then.
   */
  async run<T>(
    client: string,
    deadline: number,
    late: () => Error,
    work: () => Promise<T>,
  ): Promise<T> {
    const state = this.clients.get(client) ?? { active: 0, servedAt: -1 };
    this.clients.set(client, state);
    state.active++;
    try {
      if (this.running >= this.concurrency) await this.turn(client, deadline, late);
      else {
        this.running++;
        state.servedAt = ++this.given;
      }
    } catch (error) {
      this.leaveClient(client, state);
      throw error;
    }
    try {
      return await work();
    } finally {
      this.leaveClient(client, state);
      this.release();
    }
  }

  private leaveClient(client: string, state: { active: number }): void {
    if (--state.active === 0) this.clients.delete(client);
  }

  private turn(client: string, deadline: number, late: () => Error): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          waiter.cancelTimeout();
          resolve();
        },
        cancelTimeout: atDeadline(deadline, () => {
          this.leave(client, waiter);
          reject(late());
        }),
      };
      const queue = this.waiting.get(client);
      if (queue) queue.push(waiter);
      else this.waiting.set(client, [waiter]);
    });
  }

  private leave(client: string, waiter: Waiter): void {
    const queue = this.waiting.get(client);
    if (!queue) return;
    queue.splice(queue.indexOf(waiter), 1);
    if (queue.length === 0) this.waiting.delete(client);
  }

  /** Hands the turn to the oldest waiter of the client served least recently, or frees it. */
  private release(): void {
    let chosen: string | undefined;
    let servedAt = Infinity;
    for (const client of this.waiting.keys()) {
      const at = this.clients.get(client)?.servedAt ?? -1;
      if (at < servedAt) [chosen, servedAt] = [client, at];
    }
    if (chosen === undefined) {
      this.running--;
      return;
    }
    const queue = this.waiting.get(chosen) as Waiter[];
    const next = queue.shift() as Waiter;
    if (queue.length === 0) this.waiting.delete(chosen);
    const state = this.clients.get(chosen);
    if (state) state.servedAt = ++this.given;
    next.start();
  }
}
