import fc from 'fast-check';

/** DESIGN §4.1: a request body over 1 MiB is 413 `payload_too_large`, on REST and /mcp alike. */
export const BODY_LIMIT = 1024 * 1024;

export type SizedKind = 'padded valid JSON' | 'long string member' | 'not JSON';

/** A body of exactly `size` bytes around a valid JSON body (ASCII, so bytes are characters). */
export function sizedBody(kind: SizedKind, size: number, validJson: string): string {
  if (kind === 'padded valid JSON')
    return ' '.repeat(Math.max(0, size - validJson.length)) + validJson;
  if (kind === 'long string member') {
    const head = `${validJson.slice(0, -1)}${validJson.length > 2 ? ',' : ''}"pad":"`;
    return `${head}${'x'.repeat(Math.max(0, size - head.length - 2))}"}`;
  }
  return 'x'.repeat(size);
}

export const oversized = fc.record({
  kind: fc.constantFrom<SizedKind>('padded valid JSON', 'long string member', 'not JSON'),
  size: fc.integer({ min: BODY_LIMIT + 1, max: Math.round(1.2 * BODY_LIMIT) }),
});

/** Sizes a valid body may be padded to and still be read: up to the limit itself. */
export const withinLimit = fc.oneof(
  fc.integer({ min: 64 * 1024 - 64, max: BODY_LIMIT }),
  fc.constant(BODY_LIMIT),
  fc.integer({ min: 0, max: 64 * 1024 }),
);
