/**
 * Seed sizes. Worker counts are totals over the three workspaces; each workspace takes its share
 * (see workspaces.ts). Time-entry volume follows from workers: roughly 100 entries per worker over
 * the 36 months, because most engagements last weeks or months, not years.
 */
export type Scale = 'tiny' | 'small' | 'medium' | 'large';

export const SCALES_IN_ORDER: readonly Scale[] = ['tiny', 'small', 'medium', 'large'];

export interface ScaleSpec {
  /** Workers over all three workspaces. */
  workers: number;
  /** Suppliers per workspace; at least six so every edge-case supplier role exists. */
  suppliers: number;
  /** Rows per `sink.insert` call: large enough to amortise a transaction, small enough to stream. */
  batchSize: number;
}

export const SCALES: Readonly<Record<Scale, ScaleSpec>> = {
  // Tests run this constantly: the edge-case workers carry most of its volume.
  tiny: { workers: 100, suppliers: 6, batchSize: 2000 },
  // The demo database.
  small: { workers: 1_200, suppliers: 16, batchSize: 2000 },
  // ~1M time entries.
  medium: { workers: 10_000, suppliers: 40, batchSize: 5000 },
  // ~10M time entries.
  large: { workers: 100_000, suppliers: 120, batchSize: 5000 },
};

export function isScale(value: string): value is Scale {
  return (SCALES_IN_ORDER as readonly string[]).includes(value);
}
