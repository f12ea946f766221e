import type { Session } from './session.js';
import { mayCall } from './reach.js';

/** The access trail's page (web/src/audit/); a worker's trail is `?worker=<id>`. */
export const TRAIL_ADDRESS = '#/access-trail';

/** "Who saw this worker": the trail of the events that revealed the worker. */
export const whoSawAddress = (workerId: string) =>
  `${TRAIL_ADDRESS}?${new URLSearchParams({ worker: workerId }).toString()}`;

/**
 * Whether this token may read the access trail (DESIGN §4.17: a staff token holding read:audit),
 * from its role and scopes as the server said them: nothing is asked, so a token without them
 * never gets a 403 of the page's making.
 */
export const mayReadTrail = (session: Session): boolean =>
  mayCall(session.reach, 'list_audit_events');
