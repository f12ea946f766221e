import { parentPort, workerData } from 'node:worker_threads';
import { writerConnection, type Statement } from './writer-connection.js';

/**
 * A side file's writes on a thread of their own (side-file.ts): its own connection runs each
 * statement the server posts, and the commit's work (the B-trees, the WAL, its checkpoints) is
 * done here, off the server's event loop.
 */
const { path, busyMs } = workerData as { path: string; busyMs: number };
const connection = writerConnection(path, busyMs);

parentPort?.on(
  'message',
  (message: ({ id: number } & (Statement | { batch: Statement[] })) | 'close') => {
    if (message === 'close') {
      connection.close();
      parentPort?.close();
      return;
    }
    try {
      const changes =
        'batch' in message
          ? connection.runBatch(message.batch)
          : connection.run(message.sql, message.params);
      parentPort?.postMessage({ id: message.id, changes });
    } catch (error) {
      const { message: text, code } = error as { message: string; code?: string };
      parentPort?.postMessage({ id: message.id, error: text, code });
    }
  },
);
