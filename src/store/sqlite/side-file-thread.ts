import { Worker } from 'node:worker_threads';
import type { Statement } from './writer-connection.js';

export type { Statement } from './writer-connection.js';

/** A write the thread has not answered yet. */
interface Pending {
  resolve: (changes: number) => void;
  reject: (error: Error) => void;
}

/**
 * The server's side of side-file-writer.ts: statements posted in order to one thread with its own
 * connection, each answered with its changes (or its error, with SQLite's code). Started at the
 * first write; `close` lets the thread finish what it was given, then end.
 */
export class SideFileThread {
  private current: { worker: Worker; pending: Map<number, Pending> } | null = null;
  private nextId = 1;

  constructor(
    private readonly path: string,
    private readonly busyMs: number,
  ) {}

  run(sql: string, params: readonly unknown[]): Promise<number> {
    return this.post({ sql, params });
  }

  /** Runs the statements in one transaction (all or none; one commit): their changes. */
  runBatch(batch: readonly Statement[]): Promise<number> {
    return this.post({ batch });
  }

  private post(message: Statement | { batch: readonly Statement[] }): Promise<number> {
    const { worker, pending } = (this.current ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, ...message });
    });
  }

  close(): void {
    this.current?.worker.postMessage('close');
    this.current = null;
  }

  private start(): { worker: Worker; pending: Map<number, Pending> } {
    const worker = new Worker(new URL('./side-file-writer.js', import.meta.url), {
      workerData: { path: this.path, busyMs: this.busyMs },
    });
    const pending = new Map<number, Pending>();
    const thread = { worker, pending };
    worker.unref();
    worker.on(
      'message',
      (answer: { id: number; changes?: number; error?: string; code?: string }) => {
        const job = pending.get(answer.id);
        if (!job) return;
        pending.delete(answer.id);
        if (pending.size === 0) worker.unref();
        if (answer.error === undefined) job.resolve(answer.changes ?? 0);
        else job.reject(Object.assign(new Error(answer.error), { code: answer.code }));
      },
    );
    // The thread failed or ended: what it was given is refused (the trail keeps it and tries
    // again, on a new thread).
    const fail = (error: Error) => {
      if (this.current === thread) this.current = null;
      for (const job of pending.values()) job.reject(error);
      pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('side file writer ended')));
    return thread;
  }
}
