/**
 * A delivery's message (DESIGN §4.14): the body `{type, subscription, dataVersion, items,
 * nextCursor}` (one `list_changes` page of the subscription's key, the version of its last item,
 * the cursor that resumes after them) and the Standard Webhooks headers, signed by the
 * `standardwebhooks` package under the subscription's secret, not by hand. A retry sends the
 * same id (and body) again with a new timestamp and signature.
 */
import { Webhook } from 'standardwebhooks';

/** What a delivery carries. */
export interface ChangesMessage {
  subscription: string;
  dataVersion: number;
  items: readonly unknown[];
  nextCursor: string;
}

/** The body, as sent and signed. */
export function messageBody(message: ChangesMessage): string {
  return JSON.stringify({
    type: 'vms.changes',
    subscription: message.subscription,
    dataVersion: message.dataVersion,
    items: message.items,
    nextCursor: message.nextCursor,
  });
}

/** The headers of one attempt: `webhook-id`, `webhook-timestamp`, `webhook-signature`. */
export function signedHeaders(
  secret: string,
  messageId: string,
  body: string,
  at: Date,
): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, at, body),
  };
}
