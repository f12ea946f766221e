import type { Session } from './session.js';

/** The access trail's page (web/src/audit/); a worker's trail is `?worker=<id>`. */
export const TRAIL_ADDRESS = '#/access-trail';

/** "Who saw this worker": the trail of the events that revealed the worker. */
export const whoSawAddress = (workerId: string) =>
  `${TRAIL_ADDRESS}?${new URLSearchParams({ worker: workerId }).toString()}`;

const known = new WeakMap<Session, Promise<boolean>>();

/**
 * Whether this token may read the access trail (DESIGN §4.17: a staff token holding read:audit),
 * asked once per sign-in with one event at most. A 403, or any other failure, offers nothing:
 * the trail's own page says why when it is opened by its address.
 */
export function mayReadTrail(session: Session): Promise<boolean> {
  let answer = known.get(session);
  if (!answer) {
    answer = session.client.call('list_audit_events', { limit: 1 }).then(
      () => true,
      () => false,
    );
    known.set(session, answer);
  }
  return answer;
}
