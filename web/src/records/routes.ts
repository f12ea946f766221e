import type { Session } from '../session.js';

/**
 * The record pages' routes (#/records/<list>, #/invoice/<id>, #/timesheet/<id>, …): the view of
 * `parts` (the hash path split on '/'), or null when the path is not a record page.
 */
export async function recordsRoute(
  _session: Session,
  _parts: string[],
): Promise<HTMLElement | null> {
  return null;
}

/** The home page's cards for the record lists this token can read. */
export async function recordCards(_session: Session): Promise<HTMLElement[]> {
  return [];
}
