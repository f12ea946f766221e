/**
 * The keys an import has seen (ids, supplier codes, deletions), each with the line it was first
 * seen on, in 16 bytes a key whatever the key's length: a 96-bit fingerprint of the key and the
 * line, in one typed array probed in the open (a million ids in 32 MB, where a `Set` of the
 * strings held about 90 MB and could keep each chunk of the file alive through a sliced string).
 *
 * A fingerprint stands for its key: two different keys taken for one would make a repeated key
 * of a file or a reference to a record the file brings. The fingerprint is three 32-bit hashes of
 * the key with seeds drawn afresh for each import, so no file can be made to collide on purpose,
 * and the chance that any two of a load's n keys share one is about n² / 2⁹⁷: 10⁻¹⁷ for a load of
 * a million rows (docs/operations.md "Keys seen").
 */
import { randomInt } from 'node:crypto';

/** Words a slot holds: three of fingerprint, one of line (0: the slot is empty). */
const WORDS = 4;

/** Grown (doubled) past this share of slots in use. */
const FULLEST = 0.7;

/** Keys `reserve` makes room for at most (2^21 slots, 32 MB): beyond them the table doubles. */
const RESERVED_MOST = Math.floor(FULLEST * 2 ** 21);

const seed = () => randomInt(0, 2 ** 32 - 1) | 0;

export class SeenKeys {
  private slots: Int32Array;
  private mask: number;
  private used = 0;
  private readonly seeds = [seed(), seed(), seed()] as const;
  /** The fingerprint of the key last hashed. */
  private a = 0;
  private b = 0;
  private c = 0;

  constructor(capacity = 1 << 12) {
    this.slots = new Int32Array(capacity * WORDS);
    this.mask = capacity - 1;
  }

  /** Keys held. */
  get size(): number {
    return this.used;
  }

  /** Notes a key first seen on `line` (≥ 1): 0 when new, else the line it was first seen on. */
  add(key: string, line: number): number {
    this.hash(key);
    const at = this.find();
    const seen = this.slots[at + 3];
    if (seen !== 0) return seen;
    this.slots[at] = this.a;
    this.slots[at + 1] = this.b;
    this.slots[at + 2] = this.c;
    this.slots[at + 3] = line;
    if (++this.used > FULLEST * (this.mask + 1)) this.grow();
    return 0;
  }

  /** The line a key was first seen on, or 0. */
  lineOf(key: string): number {
    this.hash(key);
    return this.slots[this.find() + 3];
  }

  has(key: string): boolean {
    return this.lineOf(key) !== 0;
  }

  /** The slot holding the last hashed fingerprint, or the empty slot where it belongs. */
  private find(): number {
    const { slots, mask, a, b, c } = this;
    for (let slot = (a ^ (c >>> 7)) & mask; ; slot = (slot + 1) & mask) {
      const at = slot * WORDS;
      if (slots[at + 3] === 0) return at;
      if (slots[at] === a && slots[at + 1] === b && slots[at + 2] === c) return at;
    }
  }

  private hash(key: string): void {
    let [a, b, c] = this.seeds;
    for (let i = 0; i < key.length; i++) {
      const unit = key.charCodeAt(i);
      a = Math.imul(a ^ unit, 0x85ebca77);
      a = (a << 13) | (a >>> 19);
      b = Math.imul(b ^ unit, 0xc2b2ae3d);
      b = (b << 15) | (b >>> 17);
      c = Math.imul(c ^ unit, 0x27d4eb2f);
      c = (c << 11) | (c >>> 21);
    }
    this.a = mix(a ^ key.length);
    this.b = mix(b ^ Math.imul(key.length, 0x9e3779b1));
    this.c = mix(c + key.length);
  }

  /**
   * Makes room for `keys` keys at once (at most RESERVED_MOST), sparing the copies of doubling
   * and the moment when the old table and the new one are both held.
   */
  reserve(keys: number): void {
    let capacity = this.mask + 1;
    const wanted = Math.min(keys, RESERVED_MOST);
    while (wanted > FULLEST * capacity) capacity *= 2;
    if (capacity > this.mask + 1) this.grow(capacity);
  }

  private grow(capacity = 2 * (this.mask + 1)): void {
    const old = this.slots;
    this.slots = new Int32Array(capacity * WORDS);
    this.mask = capacity - 1;
    for (let at = 0; at < old.length; at += WORDS) {
      if (old[at + 3] === 0) continue;
      this.a = old[at];
      this.b = old[at + 1];
      this.c = old[at + 2];
      this.slots.set(old.subarray(at, at + WORDS), this.find());
    }
  }
}

/** MurmurHash3's finaliser: every bit of the state moves every bit of the hash. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
