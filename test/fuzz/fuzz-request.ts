import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { AnyOperation } from '../../src/operations/operation.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import { send, type Answer } from '../support/harness.js';

/** One request as generated: plain data, so fast-check can print and shrink it. */
export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload?: string;
}

/** Mostly `value`, now and then one of `other`; a failure shrinks back towards `value`. */
export function usually<T>(value: T, other: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ withCrossShrink: true }, { weight: 9, arbitrary: fc.constant(value) }, other);
}

/** Headers without the absent ones (undefined means the client did not send the header). */
export function headersOf(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(headers).filter(
      (entry): entry is [string, string | string[]] => entry[1] !== undefined,
    ),
  );
}

export function sendRequest(app: FastifyInstance, request: FuzzRequest): Promise<Answer> {
  // GET and HEAD carry no body here: what a browser or fetch would send.
  const payload =
    request.method === 'GET' || request.method === 'HEAD' ? undefined : request.payload;
  return send(app, { ...request, payload } as InjectOptions);
}

/** An answer in a line: status, request id and the start of the body. */
export function shown(answer: Answer): string {
  const id = answer.headers['x-request-id'];
  return `HTTP ${answer.status} x-request-id=${id} ${answer.raw.slice(0, 600)}`;
}

/** Sends a request and checks its answer; a failure's message then shows the answer too. */
export async function sendAndCheck(
  app: FastifyInstance,
  request: FuzzRequest,
  check: (request: FuzzRequest, answer: Answer) => void,
): Promise<void> {
  const answer = await sendRequest(app, request);
  try {
    check(request, answer);
  } catch (error) {
    if (error instanceof Error) error.message += `\n    answer: ${shown(answer)}`;
    throw error;
  }
}

/** The request's JSON body, or undefined when it has none or it is not JSON. */
export function parsedPayload(request: FuzzRequest): unknown {
  try {
    return request.payload === undefined ? undefined : JSON.parse(request.payload);
  } catch {
    return undefined;
  }
}

/** Operations drawn by name: a counterexample then prints a name, not the whole definition. */
export function operationName(
  filter: (op: AnyOperation) => boolean = () => true,
): fc.Arbitrary<string> {
  return fc.constantFrom(...OPERATIONS.filter(filter).map((op) => op.name));
}

export function operationNamed(name: string): AnyOperation {
  return OPERATIONS.find((op) => op.name === name) as AnyOperation;
}
