/**
 * Webhook subscriptions as operators make and manage them (DESIGN §4.14): each bound to an access
 * key, pushing what `list_changes` shows that key from the data version current when it is made.
 */
import { randomBytes } from 'node:crypto';
import { hashToken } from '../auth/tokens.js';
import { FEED_TYPE_NAMES } from '../store/sql/change-log.js';
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

/** A key that no longer authenticates (revoked or expired) pushes nothing. */
function keyLives(token: { revokedAt: string | null; expiresAt: string | null }, now: Date) {
  return (
    token.revokedAt === null && (token.expiresAt === null || token.expiresAt > now.toISOString())
  );
}

/** A new subscription: its id and its signing secret (`whsec_` + base64, shown once here). */
export async function createWebhook(
  store: Store,
  request: WebhookRequest,
  addresses: AddressOptions,
): Promise<{ id: string; secret: string }> {
  const token = await store.findTokenByHash(hashToken(request.token));
  if (!token) throw new AdminError('no such token');
  if (!keyLives(token, request.now)) throw new AdminError('the token is revoked or expired');
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
    const token = await store.findTokenById(s.tokenId);
    summaries.push({
      id: s.id,
      workspace: s.workspaceId,
      url: s.url,
      types: s.types,
      state: token && keyLives(token, now) ? s.state : 'disabled',
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
  if (!(await store.webhooks().setWebhookState(id, state, now.toISOString())))
    throw new AdminError(`no such webhook: ${id}`);
}

export async function deleteWebhook(store: Store, id: string): Promise<void> {
  if (!(await store.webhooks().deleteWebhook(id))) throw new AdminError(`no such webhook: ${id}`);
}
