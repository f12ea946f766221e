// What every part of the open-internet attacks uses: the log, rounding, the targets, and
// who is who (the addresses the trusted proxy reports).
import { log as say } from '../lib.mjs';

export const log = (message) => say(`[open-internet] ${message}`);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const round = (x, digits = 1) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null);
export const percentile = (xs, p) => {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
export const MB = 2 ** 20;

/** The targets, printed beside the figures. */
export const TARGETS = {
  dbGrowthMb: 5,
  rssGrowthMb: 50,
  victimP99Ms: 1000,
};

export const verdict = (value, limit) => ({
  value,
  result: value === null || value === undefined ? 'n/a' : value <= limit ? 'PASS' : 'MISS',
});

/** The workspace whose access key signs the person in (the import loads load-files' own). */
export const WORKSPACE = 'ws_business';
/** The attacker's and the person's addresses, as the trusted proxy reports them. */
export const ATTACKER = '198.51.100.1';
export const PERSON = '203.0.113.2';
export const floodAddress = (n) => `198.51.100.${1 + (n % 100)}`;
/** Attack 3's registrations, each from the next of these (a client registers once). */
export const registrantAddress = (n) => `203.0.113.${100 + (n % 50)}`;
