import { randomInt } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Answer } from '../support/harness.js';
import { assertTimeBoxed } from '../support/time-boxed.js';
import type { FuzzContext, FuzzSuite } from './fuzz-context.js';
import type { FuzzRequest } from './fuzz-request.js';

/**
 * One seed per test process, printed: VMS_READ_FUZZ_SEED when set, else random. Every property
 * uses it, so `VMS_READ_FUZZ_SEED=<a failure's seed>` draws the same requests again (shrinking
 * may stop elsewhere when the time limit cuts it short).
 */
function fuzzSeed(value = process.env.VMS_READ_FUZZ_SEED): number {
  if (value === undefined || value === '') return randomInt(0, 2 ** 31 - 1);
  if (!/^-?[0-9]+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new Error(`VMS_READ_FUZZ_SEED must be an integer, not ${JSON.stringify(value)}`);
  return Number(value) | 0;
}

export const FUZZ_SEED = fuzzSeed();
console.log('fuzz seed', FUZZ_SEED);

/**
 * Each property runs until `numRuns` or its time limit, whichever comes first: at 1.5 s each,
 * the fuzz files stay within about a minute for both stores on a 2-core machine, however slow
 * the machine. The limit covers shrinking too: a failure found late is reported as far as it
 * shrank. The request in flight when the limit strikes is answered before the test ends.
 */
export function fuzz<T>(
  arbitrary: fc.Arbitrary<T>,
  check: (value: T) => Promise<void>,
  { numRuns = 500, timeLimitMs = 1_500 }: { numRuns?: number; timeLimitMs?: number } = {},
): Promise<void> {
  return assertTimeBoxed(arbitrary, check, {
    seed: FUZZ_SEED,
    numRuns,
    timeLimitMs,
    // The failure message then says what the answer was, not only which request got it.
    includeErrorInReport: true,
  });
}

/** Per rule (a describe), the requests it must hold for (an it each) and the check of an answer. */
export type RuleTable = Record<
  string,
  [
    requests: string,
    arbitrary: (ctx: FuzzContext) => fc.Arbitrary<FuzzRequest>,
    check: (request: FuzzRequest, answer: Answer) => void,
  ][]
>;

export function describeRules(suite: FuzzSuite, rules: RuleTable): void {
  for (const [rule, cases] of Object.entries(rules))
    describe(rule, () => {
      for (const [requests, arbitrary, check] of cases)
        it(`holds for ${requests}`, () => fuzz(arbitrary(suite.ctx), suite.answering(check)));
    });
}
