/**
 * Values the API sends plain, outside a provenance envelope (SPEC "Provenance object": ids,
 * enumerated values, currency codes). Plain means they cannot carry prose, so that is made true
 * where they come in: the importer, the CLI flags and saved-query definitions accept for them only
 * a value listed for the field, or one of the shapes below. People-typed text is never checked
 * against these: it is stored as given and leaves inside an envelope.
 */

/** An id, and an open set's value (worker `type`, assignment `status`): 1 to 64 ASCII characters. */
export const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** PLAIN_ID in words, for messages. */
export const PLAIN_ID_SHAPE =
  'an id: 1 to 64 characters from A-Z a-z 0-9 _ . : -, starting with a letter or digit';

export function isPlainId(value: unknown): value is string {
  return typeof value === 'string' && PLAIN_ID.test(value);
}

/** A currency code (SPEC: "three-letter ISO currency code"). */
export const CURRENCY_CODE = /^[A-Z]{3}$/;

/**
 * How long people-typed text may be, by what the domain needs: a name, an email address (RFC
 * 5321's 254), a line's description, a saved query's definition; every other text column is a
 * code, key, reference, category or number (100). Ids, dates, enumerations and currencies are
 * bounded by their formats. A longer value is refused: stored, it would make every answer that
 * carries it that long.
 */
export const TEXT_LIMITS = {
  name: 200,
  email: 254,
  description: 1000,
  definition: 16_384,
  other: 100,
} as const;
