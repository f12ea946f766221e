/**
 * Serialises the success envelope `{data, request_id}` as the UTF-8 bytes sent, for REST and
 * for MCP's direct tool calls alike.
 *
 * The data is written with JSON.stringify. Until issue 23 it was fast-json-stringify, compiled
 * from each operation's output schema: on a page of 50 workers (50 kB) it took 235 µs where
 * JSON.stringify takes 86, because it checks every nullable value against each branch of its
 * `anyOf` (a provenance envelope or null), and it wrote optional properties after the required
 * ones rather than in the record's order. What it also did, leave out any property its schema
 * does not name, is now the answer builders' alone (a record maps only its declared fields,
 * records/record.ts), and test/http/provenance.test.ts checks a real answer of every operation
 * against its output schema with no property beyond it (which fast-json-stringify used to hide).
 *
 * An answer is written once: a repeat answered from the executor's cache is the same object, so
 * its bytes (and, for MCP, its text escaped as a JSON string) are kept beside it, by the object (a
 * WeakMap: they go when the cache lets the answer go), and a hit is sent as those bytes. Bytes,
 * not a string: turning a JavaScript string of 50 kB into UTF-8 on every send cost more than all
 * the rest of a cached MCP answer; and a first answer sent as a string (Node writes it with the
 * headers in one write) served uncached lists about a quarter slower than bytes did (issue 23).
 */
export interface EnvelopeSerializer {
  /**
   * `{"data":…,"request_id":…}`: the body REST sends, in parts to be written one after the other
   * (the data's kept bytes never copied).
   */
  (data: unknown, requestId: string): Buffer[];
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

/** What is kept of an answer, written now if it was not. */
function write(data: unknown): Written {
  const object = typeof data === 'object' && data !== null ? data : null;
  const known = object && written.get(object);
  if (known) return known;
  const made: Written = { data: Buffer.from(JSON.stringify(data)) };
  if (object) written.set(object, made);
  return made;
}

const tail = (requestId: string) => `,"request_id":${JSON.stringify(requestId)}}`;

export const serializeEnvelope = ((data: unknown, requestId: string) => [
  HEAD,
  write(data).data,
  Buffer.from(tail(requestId)),
]) as EnvelopeSerializer;
serializeEnvelope.data = (data) => write(data).data;
serializeEnvelope.escaped = (data, requestId) => {
  const kept = write(data);
  kept.escaped ??= Buffer.from(escape(kept.data.toString()));
  return [ESCAPED_HEAD, kept.escaped, Buffer.from(escape(tail(requestId)))];
};
