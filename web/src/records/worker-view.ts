import { h } from '../dom.js';
import type { Session } from '../session/session.js';
import { mayReadTrail, whoSawAddress } from '../session/trail-access.js';
import {
  recordPage,
  fieldList,
  fieldValue,
  notVisible,
  when,
  words,
  type ApiRecord,
} from './record-fields.js';

/**
 * A worker's fields; name and work email say "withheld" where the token lacks read:pii. Where the
 * token may read the access trail, "Who saw this worker" opens the worker's part of it.
 */
export function workerDetail(worker: ApiRecord & { id: string }, trail = false): HTMLElement {
  return recordPage(
    { key: 'workers', title: 'Workers' },
    'Worker',
    worker.id,
    fieldList([
      ['Name', fieldValue(worker, 'displayName')],
      ['Work email', fieldValue(worker, 'workEmail')],
      ['Engagement', words(worker.type)],
      ['Classification', fieldValue(worker, 'classificationStatus')],
      ['Tenure start', fieldValue(worker, 'tenureStart')],
      ['Onboarding', words(worker.onboardingState)],
      ['Status', words(worker.status)],
      ['Created', when(worker.createdAt)],
      ['Updated', when(worker.updatedAt)],
    ]),
    trail
      ? h(
          'p',
          { class: 'who-saw' },
          h('a', { href: whoSawAddress(worker.id) }, 'Who saw this worker'),
        )
      : null,
  );
}

export async function workerView(session: Session, id: string): Promise<HTMLElement> {
  const { item } = (await session.client.call('get_worker', { id })) as {
    item: (ApiRecord & { id: string }) | null;
  };
  return item ? workerDetail(item, mayReadTrail(session)) : notVisible('worker', id);
}
