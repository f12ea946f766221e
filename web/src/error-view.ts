import { VmsReadError, VmsReadRefusal } from 'vms-read-client';
import { h } from './dom.js';

/** An error as the page shows it: the service's code and message, and the request id. */
export function errorView(error: unknown): HTMLElement {
  if (error instanceof VmsReadError)
    return h(
      'p',
      { class: 'error', role: 'alert' },
      `${error.status} ${error.code}: ${error.body.error.message} (request ${error.requestId})`,
    );
  if (error instanceof VmsReadRefusal)
    return h('p', { class: 'error', role: 'alert' }, error.message);
  return h(
    'p',
    { class: 'error', role: 'alert' },
    `Something went wrong: ${(error as Error).message}`,
  );
}
