import { connect, type Socket } from 'node:net';
import type { Answer } from './harness.js';

/** An HTTP/1.1 answer read off a raw socket: what a client that is not a browser sees. */
export function parseRawAnswer(text: string): Answer {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n');
  const headers: Answer['headers'] = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const raw = text.slice(split + 4);
  let body: unknown = raw;
  try {
    body = JSON.parse(raw);
  } catch {
    // not JSON: left as text for the assertion to show
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, raw };
}

/** Opens a connection to a loopback port. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends on `socket` until it closes the connection (or `ms` pass). */
export function readUntilClosed(socket: Socket, ms = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`socket still open after ${ms} ms`)), ms);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
    socket.once('error', () => {});
  });
}

/** Sends raw bytes on a fresh connection and returns the server's answer once it closes it. */
export async function rawRequest(port: number, bytes: string): Promise<Answer> {
  const socket = await openSocket(port);
  const answer = readUntilClosed(socket);
  socket.write(bytes);
  return parseRawAnswer(await answer);
}

/** Connects, sends `requests` (raw HTTP, pipelined when several), then reads nothing. */
export async function silentClient(port: number, requests: string): Promise<Socket> {
  const socket = await openSocket(port);
  socket.pause();
  socket.write(requests);
  return socket;
}
