import { parentPort, workerData } from 'node:worker_threads';
import { openAuditWriter, type AuditWriterTarget } from '../store/audit-writer.js';
import { ChainWriter, MAX_WAITING, type HandedBatch } from './chain-writer.js';

/**
 * The access trail's thread (chain-thread.ts): its chain's writer with a connection of its own.
 * Batches are taken in the order posted; each post is answered with the write's outcome once the
 * store took (or refused) what waits. A warning goes back to the server's log.
 */
const { target, chainId } = workerData as { target: AuditWriterTarget; chainId: string };
const port = parentPort!;

/** An error as a message can carry it (its text and code), for the server's log. */
const plain = (error: unknown) => {
  const { message, code } = (error ?? {}) as { message?: string; code?: string };
  return { message: String(message ?? error), ...(code === undefined ? {} : { code }) };
};

const opened = openAuditWriter(target);
const writer = opened.then(
  ({ records }) =>
    new ChainWriter(
      records,
      chainId,
      Date.now,
      (fields, message) => {
        const { err, ...rest } = fields as { err?: unknown };
        port.postMessage({ warn: { ...rest, err: plain(err) }, message });
      },
      MAX_WAITING,
      // Each commit said at once: a thread that dies after it leaves nothing stored to give again.
      (outcome) => port.postMessage({ progress: outcome }),
    ),
);
let turn: Promise<unknown> = Promise.resolve();

port.on('message', (message: { id: number; batches: HandedBatch[] } | 'close') => {
  turn = turn.then(async () => {
    if (message === 'close') {
      await opened.then(
        (writerOf) => writerOf.close(),
        () => {},
      );
      port.close();
      // A connection left half-open (a frozen database) must not keep the thread alive.
      process.exit(0);
    }
    try {
      const chain = await writer;
      for (const batch of message.batches) chain.take(batch);
      port.postMessage({ id: message.id, outcome: await chain.write() });
    } catch (error) {
      // The writer could not be opened: the server starts another thread and gives it all again.
      port.postMessage({ id: message.id, error: plain(error) });
    }
  });
});
