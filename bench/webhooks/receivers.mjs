// The webhook benchmarks' receivers: one that verifies every request (the `standardwebhooks`
// package) and notes when each run's marker arrived, and one that accepts connections and never
// answers; and waiting for an arrival.
import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { freePort } from '../lib.mjs';

/** The receiver: verifies each request under its path's secret and notes when a run's marker came. */
export async function startReceiver() {
  const secrets = new Map();
  const arrivals = new Map(); // `${path} ${marker}` → performance.now()
  let unverified = 0;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        new Webhook(secrets.get(request.url)).verify(raw, request.headers);
      } catch {
        unverified++;
      }
      for (const [, marker] of raw.matchAll(/(bench-hook-\d+)/g)) {
        const key = `${request.url} ${marker}`;
        if (!arrivals.has(key)) arrivals.set(key, at);
      }
      response.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    secretFor: (path, secret) => secrets.set(path, secret),
    arrival: (path, marker) => arrivals.get(`${path} ${marker}`),
    unverified: () => unverified,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** A receiver that accepts connections and never answers; `held()`: the connections it holds. */
export async function startDeadReceiver() {
  const sockets = new Set();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    // Read (and drop) what comes, so that a connection the sender closes is seen to close.
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/dead`,
    held: () => sockets.size,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Resolves with when `check` first gives a time, polling every 2 ms, or null after `seconds`. */
export async function until(check, seconds = 15) {
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const at = check();
    if (at !== undefined) return at;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return null;
}
