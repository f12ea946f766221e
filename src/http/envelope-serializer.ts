import fastJson from 'fast-json-stringify';
import type { AnyOperation } from '../operations/operation.js';

/**
 * Serialises the success envelope `{data, request_id}` as the UTF-8 bytes sent: the data with a
 * serializer compiled once from the operation's output schema (the answer, not its refusal
 * schema; a refusal, rarer and small, goes through JSON.stringify; both give the same JSON text
 * for the same value), the request id beside it.
 *
 * An answer is written once: a repeat answered from the executor's cache is the same object, so
 * its bytes (and, for MCP, its text escaped as a JSON string) are kept beside it, by the object (a
 * WeakMap: they go when the cache lets the answer go), and a hit is sent as those bytes. Bytes,
 * not a string: turning a JavaScript string of 50 kB into UTF-8 on every send cost more than all
 * the rest of a cached MCP answer (issue 23).
 *
 * fast-json-stringify checks a value against each branch of an `anyOf` (a row's value: a number,
 * a numeric string, a provenance object) with validators it compiles on first use: 70 ms on the
 * first report answer after a start. `warmWith`, an answer of the operation (the seed's example,
 * seed-examples.json), is serialised here, so that cost is paid at start, not by a client.
 */
const WARM_RUNS = 50;

export interface EnvelopeSerializer {
  /** `{"data":…,"request_id":…}`: the body REST sends. */
  (data: unknown, requestId: string): Buffer;
  /** The data's JSON text alone. */
  data(data: unknown): Buffer;
  /**
   * REST's body as the inside of a JSON string literal (escaped): MCP's text content, in parts
   * to be written one after the other (the large one kept, never copied).
   */
  escaped(data: unknown, requestId: string): Buffer[];
}

interface Written {
  data: Buffer;
  escaped?: Buffer;
}

const written = new WeakMap<object, Written>();

/** `text` as it reads inside a JSON string literal: JSON.stringify without the quotes. */
const escape = (text: string) => JSON.stringify(text).slice(1, -1);

const HEAD = Buffer.from('{"data":');
const ESCAPED_HEAD = Buffer.from(escape('{"data":'));

export function envelopeSerializer(
  operation: AnyOperation,
  warmWith?: unknown,
): EnvelopeSerializer {
  const stringify = fastJson(JSON.parse(JSON.stringify(operation.output)));
  const write = (data: unknown): Written => {
    const object = typeof data === 'object' && data !== null ? data : null;
    const known = object && written.get(object);
    if (known) return known;
    const text =
      (data as { status?: string }).status === 'refused'
        ? JSON.stringify(data)
        : stringify(data as never);
    const made: Written = { data: Buffer.from(text) };
    if (object) written.set(object, made);
    return made;
  };
  const tail = (requestId: string) => `,"request_id":${JSON.stringify(requestId)}}`;
  const serialize = ((data: unknown, requestId: string) =>
    Buffer.concat([HEAD, write(data).data, Buffer.from(tail(requestId))])) as EnvelopeSerializer;
  serialize.data = (data) => write(data).data;
  serialize.escaped = (data, requestId) => {
    const kept = write(data);
    kept.escaped ??= Buffer.from(escape(kept.data.toString()));
    return [ESCAPED_HEAD, kept.escaped, Buffer.from(escape(tail(requestId)))];
  };
  // Several times (fresh copies, so nothing is kept), so its code is compiled by the JIT too, not
  // only interpreted. Best effort: an example that no longer fits the schema costs the warmth,
  // never the start.
  try {
    if (warmWith !== undefined)
      for (let i = 0; i < WARM_RUNS; i++) serialize(structuredClone(warmWith), 'warm-up');
  } catch {
    // test/http/envelope-serializer.test.ts keeps every example fitting.
  }
  return serialize;
}
