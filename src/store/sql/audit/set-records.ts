/**
 * An event's records named by set (issue 59): its stored JSON holds `"revealed":{"set":id}`, the
 * records themselves are written once a day per set (`audit_sets`), their digest the id. Events
 * written before hold their records inline.
 */

/** The member an event's canonical JSON names its records by, for a set. */
export const setReference = (setId: string): string => `{"set":${JSON.stringify(setId)}}`;

const REFERENCE = ',"revealed":{"set":';

/**
 * The event's canonical JSON with its set's records in place of the reference (what it would be
 * with them inline). `revealed` is the only member an event's canonical JSON holds that may be an
 * object after `requestId`: the last reference is the event's own.
 */
export function withRecords(json: string, records: string): string {
  const at = json.lastIndexOf(REFERENCE);
  if (at < 0) return json;
  const end = json.indexOf('}', at + REFERENCE.length);
  return `${json.slice(0, at)},"revealed":${records}${json.slice(end + 1)}`;
}

/** The set id an event's parsed JSON names its records by; null when they are inline or none. */
export function setNamed(revealed: unknown): string | null {
  if (typeof revealed !== 'object' || revealed === null || Array.isArray(revealed)) return null;
  const set = (revealed as { set?: unknown }).set;
  return typeof set === 'string' ? set : null;
}
