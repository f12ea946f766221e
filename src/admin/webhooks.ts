/**
 * Webhook subscriptions as operators make and manage them (DESIGN §4.14): each bound to an access
 * key, pushing what `list_changes` shows that key from the data version current when it is made.
 */
import { randomBytes } from 'node:crypto';
import { hashToken, liveKey } from '../auth/tokens.js';
import { FEED_TYPE_NAMES } from '../store/sql/change-log.js';
import type { DeliveryAttempt } from '../store/sql/webhook-progress.js';
import type { WebhookState, WebhookSubscription } from '../store/sql/webhook-subscriptions.js';
import type { Store } from '../store/store.js';
import {
  checkWebhookUrl,
  WebhookAddressError,
  type AddressOptions,
} from '../webhooks/addresses.js';
import { AdminError } from './admin-error.js';

export interface WebhookRequest {
  /** The access key whose view the subscription pushes. */
  token: string;
  url: string;
  /** Item types to push; empty for every type the key reads. */
  types: readonly string[];
  now: Date;
}

/** A new subscription: its id and its signing secret (`whsec_` + base64, shown once here). */
export async function createWebhook(
  store: Store,
  request: WebhookRequest,
  addresses: AddressOptions,
): Promise<{ id: string; secret: string }> {
  const token = await store.findTokenByHash(hashToken(request.token));
  if (!token) throw new AdminError('no such token');
  // A key that no longer authenticates (revoked or expired) pushes nothing.
  if (!(await liveKey(store, token.id, request.now.getTime())))
    throw new AdminError('the token is revoked or expired');
  for (const type of request.types)
    if (!(FEED_TYPE_NAMES as readonly string[]).includes(type))
      throw new AdminError(
        `--type must be one of ${FEED_TYPE_NAMES.join(', ')}, got ${JSON.stringify(type)}`,
      );
  try {
    await checkWebhookUrl(request.url, addresses);
  } catch (error) {
    if (error instanceof WebhookAddressError) throw new AdminError(error.message);
    throw error;
  }
  const at = request.now.toISOString();
  const subscription: WebhookSubscription = {
    id: `whk_${randomBytes(12).toString('hex')}`,
    workspaceId: token.workspaceId,
    tokenId: token.id,
    url: request.url,
    types: request.types.length === 0 ? null : [...new Set(request.types)].sort(),
    // Standard Webhooks: `whsec_` and the key's bytes in base64.
    secret: `whsec_${randomBytes(32).toString('base64')}`,
    state: 'active',
    fromVersion: (await store.dataVersion()).version,
    createdAt: at,
    updatedAt: at,
  };
  await store.webhooks().insertWebhook(subscription);
  return { id: subscription.id, secret: subscription.secret };
}

/** A subscription as `webhook list` shows it (never its secret). */
export interface WebhookSummary {
  id: string;
  workspace: string;
  url: string;
  types: string[] | null;
  /** `disabled` too when its key was revoked or expired. */
  state: WebhookState;
  fromVersion: number;
  createdAt: string;
}

export async function listWebhooks(store: Store, now: Date): Promise<WebhookSummary[]> {
  const summaries: WebhookSummary[] = [];
  for (const s of await store.webhooks().listWebhooks()) {
    const key = await liveKey(store, s.tokenId, now.getTime());
    summaries.push({
      id: s.id,
      workspace: s.workspaceId,
      url: s.url,
      types: s.types,
      state: key ? s.state : 'disabled',
      fromVersion: s.fromVersion,
      createdAt: s.createdAt,
    });
  }
  return summaries;
}

export async function setWebhookState(
  store: Store,
  id: string,
  state: 'active' | 'disabled',
  now: Date,
): Promise<void> {
  const webhooks = store.webhooks();
  if (!(await webhooks.setWebhookState(id, state, now.toISOString())))
    throw new AdminError(`no such webhook: ${id}`);
  // Enabled again (after a 410, or failing): the delivery waiting is tried at once, for 3 more days.
  if (state === 'active') await webhooks.resetRetries(id);
}

export async function deleteWebhook(store: Store, id: string): Promise<void> {
  const webhooks = store.webhooks();
  if (!(await webhooks.deleteWebhook(id))) throw new AdminError(`no such webhook: ${id}`);
  await webhooks.forget(id);
}

/** An attempt as `webhook deliveries` shows it: the log's, with its time as an ISO timestamp. */
export type AttemptSummary = Omit<DeliveryAttempt, 'subscriptionId' | 'at'> & { at: string };

/** The subscription's most recent attempts, newest first. */
export async function webhookDeliveries(
  store: Store,
  id: string,
  limit: number,
): Promise<AttemptSummary[]> {
  const webhooks = store.webhooks();
  if (!(await webhooks.findWebhook(id))) throw new AdminError(`no such webhook: ${id}`);
  return (await webhooks.recentAttempts(id, limit)).map(({ subscriptionId: _, at, ...a }) => ({
    at: new Date(at).toISOString(),
    ...a,
  }));
}
