/**
 * Seeded randomness for the generator. Every random choice comes from an `Rng` built from the run's
 * seed plus the coordinates of the thing being generated (workspace, stream, worker, period...), so
 * any record can be re-derived on its own, in any pass, without replaying the ones before it.
 * That is what lets invoicing re-read time entries instead of holding them in memory.
 * Never Math.random or the clock: the same options must give byte-identical rows.
 */

/** Independent random streams; a new stream gets a new number so older streams keep their values. */
export const Stream = {
  Supplier: 1,
  Worker: 2,
  WorkerText: 3,
  Timesheet: 5,
  Entries: 6,
  Expenses: 7,
  Approvals: 8,
  Invoice: 9,
  SavedQuery: 10,
} as const;

/** Murmur3's finaliser: spreads every input bit over the whole 32-bit word. */
function fmix32(input: number): number {
  let h = input >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes a list of integers (seed and coordinates) into one 32-bit word. */
export function hashInts(parts: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    // Fold in the high half too, so seeds above 2^32 still differ.
    const lo = part | 0;
    const hi = Math.floor(part / 4294967296) | 0;
    h = fmix32((h ^ Math.imul(lo + 0x7f4a7c15, 0x9e3779b1)) + hi);
  }
  return h;
}

/** sfc32: small, fast, passes PractRand; plenty for synthetic data. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seedWord: number) {
    this.a = fmix32(seedWord ^ 0xa5a5a5a5);
    this.b = fmix32(seedWord + 0x6a09e667);
    this.c = fmix32(seedWord ^ 0x3c6ef372);
    this.d = 1;
    // Discard the first outputs: sfc32 needs a few rounds to decorrelate similar seeds.
    for (let i = 0; i < 12; i++) this.next();
  }

  /** An Rng for the record at these coordinates (seed first, then stream and indexes). */
  static at(...parts: number[]): Rng {
    return new Rng(hashInts(parts));
  }

  /** Uniform 32-bit unsigned integer. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next() / 4294967296;
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)];
  }

  /** Index drawn in proportion to `weights` (which need not sum to 1). */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let x = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i];
      if (x < 0) return i;
    }
    return weights.length - 1;
  }
}
