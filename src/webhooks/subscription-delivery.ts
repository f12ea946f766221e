/**
 * One subscription's deliveries (DESIGN §4.14), as a task of the loop in delivery.ts runs them:
 * it claims the subscription's lease (one instance delivers it at a time; another takes over when
 * the lease lapses), then, in version order, builds the next page (subscription-page.ts), stores
 * it as the pending delivery before sending it (a restart sends the same id and body again),
 * holds the lease past the try's time limit (webhook-leases.ts: no one else sends meanwhile),
 * signs it (message.ts), posts it (post.ts: the address rules, no redirects, a time limit, nothing
 * sent once it passed) and judges the answer (retries.ts). A 2xx moves the feed past it and goes
 * on to the next page; a failure schedules a retry; a 410 disables the subscription; three days of
 * failures mark it failing.
 */
import { randomUUID } from 'node:crypto';
import { StoreBusyError } from '../errors.js';
import { principalOfKey } from '../auth/key-principal.js';
import { liveKey } from '../auth/tokens.js';
import type { WebhookMeters } from '../metrics/webhook-metrics.js';
import type { Executor } from '../operations/executor.js';
import type { DeliveryAttempt, PendingDelivery } from '../store/sql/webhook-progress.js';
import type { WebhookState, WebhookSubscription } from '../store/sql/webhook-subscriptions.js';
import type { Store } from '../store/store.js';
import { checkUrlForm } from './addresses.js';
import { messageBody, signedHeaders } from './message.js';
import { NOT_SENT, postWebhook, STOPPED, type PostOutcome } from './post.js';
import { judgeAttempt, type Verdict } from './retries.js';
import { startPosition, subscriptionPage } from './subscription-page.js';

/** The delivery's settings (the server's configuration; tests shorten the times). */
export interface DeliverySettings {
  /** VMS_READ_WEBHOOK_ALLOW_INSECURE: http and private addresses allowed. */
  allowInsecure: boolean;
  /** VMS_READ_WEBHOOK_RETRY_MS: the first retry's gap, doubling up to an hour. */
  retryMs?: number;
  /** VMS_READ_WEBHOOK_LEASE_MS: how long a claim lasts unrenewed (default 30 s). */
  leaseMs?: number;
  /** How often the loop looks for work (default 200 ms). */
  pollMs?: number;
  /** Subscriptions delivered at once (default 32). */
  concurrency?: number;
  /** Subscriptions delivered at once to one receiver, a URL's host and port (default 4; slots.ts). */
  perReceiver?: number;
  /** A try's time limit (default 10 s, DESIGN §4.14). */
  timeoutMs?: number;
  /** How host names resolve when connecting (tests); the system's by default. */
  resolve?: (host: string) => Promise<string[]>;
}

/** The settings with every default filled in. */
export type SettingsInForce = Required<Omit<DeliverySettings, 'resolve'>> &
  Pick<DeliverySettings, 'resolve'>;

export interface DeliveryDeps {
  store: Store;
  executor: Executor;
  log: {
    warn(details: object, message: string): void;
    info(details: object, message: string): void;
  };
  meters?: WebhookMeters;
  /** The clock, in ms (tests move it days ahead). */
  now?: () => number;
}

/** What a subscription's deliveries share with the loop that runs them. */
export interface DeliveryContext {
  deps: DeliveryDeps;
  settings: SettingsInForce;
  /** The loop's name on the leases it holds. */
  owner: string;
  /** Aborted when the server stops: tries under way end at once. */
  signal: AbortSignal;
  now: () => number;
  /** A lease was claimed: the loop renews its leases from now on. */
  claimed(): void;
}

/**
 * What one try came to, as the attempt log keeps it: the answer's status and size, or why there
 * was none. Never what the receiver said: it may echo the body, names included, which an erasure
 * must be able to reach (DESIGN §4.13); its status says what the log needs.
 */
function describe(outcome: PostOutcome): Pick<DeliveryAttempt, 'status' | 'answerBytes' | 'error'> {
  if ('error' in outcome) return { status: null, answerBytes: null, error: outcome.error };
  return { status: outcome.status, answerBytes: outcome.bytes, error: null };
}

export class SubscriptionDelivery {
  constructor(private readonly context: DeliveryContext) {}

  /** Delivers one subscription's pages in order while they are acknowledged. */
  async deliver(subscription: WebhookSubscription): Promise<void> {
    const { store, executor } = this.context.deps;
    const webhooks = store.webhookDelivery();
    const key = await liveKey(store, subscription.tokenId, this.context.now());
    const principal = key ? await principalOfKey(store, key) : null;
    if (!principal) {
      // Revoking (or the expiry of) its key disables a subscription.
      await this.setState(subscription, 'disabled', 'its access key was revoked or expired');
      return;
    }
    await webhooks.startProgress(subscription.id, startPosition(subscription.fromVersion));
    const { leaseMs } = this.context.settings;
    if (!(await webhooks.claim(subscription.id, this.context.owner, this.context.now(), leaseMs)))
      return;
    this.context.claimed();
    while (!this.context.signal.aborted) {
      const progress = await webhooks.findProgress(subscription.id);
      if (progress === null || progress.leaseOwner !== this.context.owner) return;
      let pending = progress.pending;
      if (pending === null) {
        // Every change of this version or before is in the page read after it.
        const { version } = await store.dataVersion();
        const page = await subscriptionPage(
          executor,
          principal,
          subscription.types,
          progress.position,
        );
        if (page === 'cursor_expired') {
          await this.setState(
            subscription,
            'failing',
            'its place in the change feed is older than the tombstones kept (VMS_READ_TOMBSTONE_DAYS): make a new subscription after reading the feed again',
          );
          return;
        }
        if (page.items.length === 0) {
          const checked = page.hasMore ? progress.checkedVersion : version;
          await webhooks.advance(subscription.id, this.context.owner, page.next, checked);
          if (page.hasMore) continue;
          return;
        }
        pending = this.pendingOf(subscription, page);
        // Kept only if nothing changed since the page was read: else read again next round.
        if (!(await webhooks.setPending(subscription.id, this.context.owner, pending, version)))
          return;
      }
      if (pending.nextAttemptAt > this.context.now()) return;
      if ((await this.attempt(subscription, pending)) !== 'delivered') return;
    }
  }

  private pendingOf(
    subscription: WebhookSubscription,
    page: Exclude<Awaited<ReturnType<typeof subscriptionPage>>, 'cursor_expired'>,
  ): PendingDelivery {
    const dataVersion = page.items[page.items.length - 1].version;
    const now = this.context.now();
    return {
      // Standard Webhooks: unique per message, the same on its retries.
      messageId: `msg_${randomUUID()}`,
      body: messageBody({
        subscription: subscription.id,
        dataVersion,
        items: page.items,
        nextCursor: page.nextCursor,
      }),
      dataVersion,
      nextPosition: page.next,
      items: page.items.length,
      attempts: 0,
      pendingSince: now,
      firstFailedAt: null,
      nextAttemptAt: now,
    };
  }

  /** One try of the pending delivery, judged and recorded. */
  private async attempt(
    subscription: WebhookSubscription,
    pending: PendingDelivery,
  ): Promise<'delivered' | 'retry' | 'failing' | 'disabled' | 'stopped'> {
    const webhooks = this.context.deps.store.webhookDelivery();
    const { allowInsecure, timeoutMs, resolve, retryMs, leaseMs } = this.context.settings;
    const { owner, now } = this.context;
    // The try ends by `end`, sent or not; the lease lasts a lease longer (to record the answer,
    // for clocks that differ), however late the loop renews: no one else sends meanwhile.
    const end = now() + timeoutMs;
    if (!(await webhooks.holdForTry(subscription.id, owner, pending.messageId, end + leaseMs)))
      return 'stopped';
    const started = now();
    let outcome: PostOutcome;
    try {
      const url = checkUrlForm(subscription.url, allowInsecure);
      const headers = signedHeaders(
        subscription.secret,
        pending.messageId,
        pending.body,
        new Date(started),
      );
      outcome = await postWebhook(url, pending.body, headers, {
        allowInsecure,
        timeoutMs,
        resolve,
        signal: this.context.signal,
        endsAt: { at: end, clock: now },
      });
    } catch (error) {
      outcome = { error: (error as Error).message };
    }
    if ('error' in outcome && outcome.error === STOPPED && this.context.signal.aborted)
      return 'stopped';
    if ('error' in outcome && outcome.error === NOT_SENT) {
      this.context.deps.log.warn(
        { subscription: subscription.id },
        'webhook delivery: this instance stalled past a try’s end and sent nothing; its lease may be another instance’s, which delivers it',
      );
      return 'stopped';
    }
    const ended = this.context.now();
    const answer = describe(outcome);
    const verdict = judgeAttempt(
      answer.status,
      pending.attempts,
      pending.firstFailedAt,
      ended,
      retryMs,
    );
    this.context.deps.meters?.attempted(verdict.next, (ended - started) / 1000);
    const firstFailedAt = pending.firstFailedAt ?? started;
    // The log is for people: a busy store that refuses its line does not hold the delivery up.
    const logged = webhooks.recordAttempt({
      subscriptionId: subscription.id,
      messageId: pending.messageId,
      attempt: pending.attempts + 1,
      at: started,
      dataVersion: pending.dataVersion,
      items: pending.items,
      ...answer,
      ms: ended - started,
      outcome: verdict.next,
    });
    await logged.catch((failure: unknown) => {
      if (!(failure instanceof StoreBusyError)) throw failure;
    });
    return this.apply(subscription, pending, verdict, firstFailedAt, ended);
  }

  private async apply(
    subscription: WebhookSubscription,
    pending: PendingDelivery,
    verdict: Verdict,
    firstFailedAt: number,
    ended: number,
  ): Promise<'delivered' | 'retry' | 'failing' | 'disabled' | 'stopped'> {
    const webhooks = this.context.deps.store.webhookDelivery();
    switch (verdict.next) {
      case 'delivered':
        return (await webhooks.delivered(
          subscription.id,
          this.context.owner,
          pending.messageId,
          ended,
        ))
          ? 'delivered'
          : 'stopped';
      case 'retry':
        await webhooks.failed(
          subscription.id,
          this.context.owner,
          pending.messageId,
          firstFailedAt,
          verdict.at,
        );
        return 'retry';
      case 'failing':
        await webhooks.failed(
          subscription.id,
          this.context.owner,
          pending.messageId,
          firstFailedAt,
          ended,
        );
        await this.setState(subscription, 'failing', 'no 2xx answer for 3 days');
        return 'failing';
      case 'disabled':
        await this.setState(subscription, 'disabled', 'the receiver answered 410 Gone');
        return 'disabled';
    }
  }

  private async setState(subscription: WebhookSubscription, state: WebhookState, why: string) {
    await this.context.deps.store
      .webhooks()
      .setWebhookState(subscription.id, state, new Date(this.context.now()).toISOString());
    // Never the URL (it may carry a receiver's own token) nor the secret.
    this.context.deps.log.info({ subscription: subscription.id }, `webhook ${state}: ${why}`);
  }
}
