import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * The size of all cached results at most, counted as their JSON text (their objects take two to
 * three times that in memory, and an answer sent again keeps its bytes beside it, once more that,
 * twice for MCP's escaped text: src/http/envelope-serializer.ts): each cache stays within a few
 * tens of megabytes.
 */
export const RESULT_CACHE_BYTES = 8 * 1024 * 1024;
/** Results held at most. */
export const RESULT_CACHE_ENTRIES = 1_000;

/**
 * Report results: every shape asked is kept from its first run, so 5,000 new shapes fill the
 * cache whatever their use; at the bounds above that grew a server 36 MB over 5,000 shapes after
 * a warm-up of 1,000 (issue 35). Half the results, half the bytes (a result of 256 KB of JSON is
 * still kept: 1,000 rows of a report's row budget).
 */
export const REPORT_CACHE_BOUNDS = { bytes: 4 * 1024 * 1024, entries: 500 };

/**
 * About the length of `value` as JSON text, several times faster than serialising it: strings by
 * their length (escapes not counted), numbers by their digits, other leaves as five characters.
 */
export function jsonSize(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value).length;
  if (typeof value !== 'object' || value === null) return 5;
  // Brackets, plus a comma between members: one fewer than their count.
  let size = 1;
  if (Array.isArray(value)) {
    for (const item of value) size += jsonSize(item) + 1;
    return Math.max(size, 2);
  }
  for (const [key, member] of Object.entries(value)) size += key.length + 4 + jsonSize(member);
  return Math.max(size, 2);
}

/** Keys seen once and not (yet) kept: the door an answer passes on its second request. */
export const SEEN_KEYS = 10_000;

/**
 * What a cache holds for a key: its SHA-256 (43 characters), whatever the key's length. Keys
 * name everything an answer depends on (a report's SQL, a request's whole input) and run to
 * kilobytes; ten thousand of 2 KB held as text took 24 MB.
 */
export const digestOf = (key: string): string =>
  createHash('sha256').update(key).digest('base64url');

/**
 * Answers already computed, by a key that names everything the answer depends on, so a repeat
 * costs a lookup. The caller's key carries the store's stamp, so a change of the data misses and
 * nothing needs invalidating. Bounded by entries and by size (least recently used dropped first);
 * one larger than a sixteenth of the bound is never kept. Identical requests that arrive together run once; failures are never kept.
 *
 * Two are used: report results (keyed by engine, data stamp and compiled SQL; see
 * `reportResultKey`) and resource reads (keyed by the store's change stamp, token, operation and
 * input; see the executor). Keys are held as digests (`digestOf`).
 */
export class ResultCache<T> {
  private readonly results: LRUCache<string, { value: T }>;
  private readonly seen = new LRUCache<string, true>({ max: SEEN_KEYS });
  private readonly running = new Map<string, Promise<T>>();
  hits = 0;

  /**
   * `enabled: false` runs every request (measurements of the engines themselves). With
   * `admitOnSecond`, an answer is kept from its second request on: a one-pass read of many
   * records (an export, an agent walking every invoice) neither pays for sizing its answers nor
   * evicts what is reused. Without it (reports, costly to compute) the first answer is kept.
   */
  constructor(
    readonly enabled = true,
    private readonly admitOnSecond = false,
    bounds: { bytes: number; entries: number } = {
      bytes: RESULT_CACHE_BYTES,
      entries: RESULT_CACHE_ENTRIES,
    },
  ) {
    this.results = new LRUCache({
      max: bounds.entries,
      maxSize: bounds.bytes,
      // One answer may take a sixteenth of the whole at most.
      maxEntrySize: bounds.bytes / 16,
      // Measured once per answer stored, never on a hit.
      sizeCalculation: (entry) => jsonSize(entry.value),
    });
  }

  /** The cached answer for `key` without running anything, or undefined. */
  peek(key: string): { value: T } | undefined {
    return this.enabled ? this.lookup(digestOf(key)) : undefined;
  }

  /** The answer kept under `digest`, counted as a hit when there is one. */
  private lookup(digest: string): { value: T } | undefined {
    const hit = this.results.get(digest);
    if (hit) this.hits++;
    return hit;
  }

  /** The cached answer, or `run`'s (shared with an identical request already running). */
  async get(text: string, run: () => Promise<T>): Promise<T> {
    if (!this.enabled) return run();
    const key = digestOf(text);
    const hit = this.lookup(key);
    if (hit) return hit.value;
    const running = this.running.get(key);
    if (running) {
      this.hits++;
      return running;
    }
    const pending = run();
    this.running.set(key, pending);
    try {
      const value = await pending;
      if (!this.admitOnSecond || this.seen.delete(key)) this.results.set(key, { value });
      else this.seen.set(key, true);
      return value;
    } finally {
      this.running.delete(key);
    }
  }

  get size(): number {
    return this.results.size;
  }
}
