/**
 * Webhook delivery inside `serve` (DESIGN §4.14). Every `pollMs` the loop renews the leases it
 * holds, reads the data version and every subscription's progress, and starts a task for each
 * active subscription with something due (a delivery whose retry time has come, or data versions
 * it has not looked at) that a slot is free for: the task delivers that subscription's pages in
 * order while they are acknowledged (subscription-delivery.ts).
 *
 * At most `concurrency` subscriptions are delivered at once, each holding one page. A slow or
 * dead receiver holds a slot for at most the time limit per try and is tried again only after
 * its retry gap; which due subscriptions take the free slots is slots.ts's (a bound per receiver,
 * a lane for retries, a fair order), so dead receivers delay no one else.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_WEBHOOK_LEASE_MS } from '../config.js';
import { StoreBusyError } from '../errors.js';
import type { SubscriptionLag } from '../metrics/webhook-metrics.js';
import type { WebhookSubscription } from '../store/sql/webhook-subscriptions.js';
import { DEFAULT_RETRY_MS } from './retries.js';
import {
  chooseStarts,
  DEFAULT_PER_RECEIVER,
  receiverOf,
  retrySlotsOf,
  type DueDelivery,
  type RunningDelivery,
} from './slots.js';
import {
  SubscriptionDelivery,
  type DeliveryDeps,
  type DeliverySettings,
  type SettingsInForce,
} from './subscription-delivery.js';

export type { DeliveryDeps, DeliverySettings } from './subscription-delivery.js';

const DEFAULT_POLL_MS = 200;
const DEFAULT_CONCURRENCY = 32;

export class WebhookDelivery {
  /** This instance's name on the leases it holds. */
  readonly owner = `dlv_${randomBytes(8).toString('hex')}`;
  private readonly running = new Map<string, RunningDelivery & { task: Promise<void> }>();
  /** When each subscription's delivery last started here: the fair order's (slots.ts). */
  private readonly started = new Map<string, number>();
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  /** A round is under way; `again`: a slot freed meanwhile, so another follows at once. */
  private inRound = false;
  private again = false;
  private lags: SubscriptionLag[] = [];
  /** Whether this instance has claimed a lease, and when it last renewed them. */
  private holding = false;
  private renewedAt = 0;
  private readonly now: () => number;
  private readonly settings: SettingsInForce;
  private readonly subscriptions: SubscriptionDelivery;

  constructor(
    private readonly deps: DeliveryDeps,
    settings: DeliverySettings,
  ) {
    this.now = deps.now ?? Date.now;
    this.settings = {
      retryMs: DEFAULT_RETRY_MS,
      leaseMs: DEFAULT_WEBHOOK_LEASE_MS,
      pollMs: DEFAULT_POLL_MS,
      concurrency: DEFAULT_CONCURRENCY,
      perReceiver: DEFAULT_PER_RECEIVER,
      timeoutMs: 10_000,
      ...settings,
    };
    this.subscriptions = new SubscriptionDelivery({
      deps,
      settings: this.settings,
      owner: this.owner,
      signal: this.stopping.signal,
      now: this.now,
      claimed: () => (this.holding = true),
    });
    deps.meters?.watch(() => this.lags);
  }

  start(): void {
    this.schedule(this.settings.pollMs);
  }

  /** The next round in `ms`: every poll, and at once when a slot freed (`freed`). */
  private schedule(ms: number): void {
    if (this.stopping.signal.aborted) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.inRound = true;
      this.ticking = this.tick()
        .catch((error: unknown) => this.failed(error, {}, 'webhook delivery: a round failed'))
        .finally(() => {
          this.inRound = false;
          const again = this.again;
          this.again = false;
          this.schedule(again ? 0 : this.settings.pollMs);
        });
    }, ms);
  }

  /**
   * A delivery ended and its slot is free: the next round starts now rather than at the next
   * poll, so a receiver held to a few deliveries at once (slots.ts) takes its next at once.
   */
  private freed(): void {
    if (this.inRound) this.again = true;
    else this.schedule(0);
  }

  /** The task delivering subscription `id` here, while one is under way (what a test awaits). */
  delivering(id: string): Promise<void> | undefined {
    return this.running.get(id)?.task;
  }

  /** Stops looking for work, ends tries under way, and gives up the leases held. */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.running.values()].map((r) => r.task));
    await this.deps.store
      .webhooks()
      .releaseLeases(this.owner)
      .catch(() => {});
  }

  /** A round that failed is tried again at the next; one that met an import's lock says nothing. */
  private failed(error: unknown, details: object, message: string): void {
    if (error instanceof StoreBusyError) return;
    this.deps.log.warn({ err: error, ...details }, message);
  }

  /** One round: renew the leases, then start a task for each subscription with something due. */
  async tick(): Promise<void> {
    const webhooks = this.deps.store.webhookDelivery();
    const { leaseMs, concurrency, perReceiver } = this.settings;
    const now = this.now();
    // Renewed every third of a lease (a try's longer one kept, webhook-leases.ts): a write, which
    // SQLite cannot make while an import runs.
    if (this.holding && now - this.renewedAt >= leaseMs / 3) {
      await webhooks.renewLeases(this.owner, now, leaseMs);
      this.renewedAt = now;
    }
    const { version } = await this.deps.store.dataVersion();
    const progress = new Map((await webhooks.listProgress()).map((p) => [p.subscriptionId, p]));
    const lags: SubscriptionLag[] = [];
    const subscriptions = new Map<string, WebhookSubscription>();
    const due: DueDelivery[] = [];
    for (const subscription of await webhooks.listWebhooks()) {
      if (subscription.state !== 'active') continue;
      subscriptions.set(subscription.id, subscription);
      const p = progress.get(subscription.id);
      const checked = p?.checkedVersion ?? subscription.fromVersion;
      lags.push({
        subscription: subscription.id,
        versions: Math.max(0, version - checked),
        seconds: p?.pending ? Math.max(0, (now - p.pending.pendingSince) / 1000) : 0,
      });
      if (this.running.has(subscription.id)) continue;
      if (p?.leaseOwner && p.leaseOwner !== this.owner && p.leaseUntil >= now) continue;
      if (!(p?.pending ? p.pending.nextAttemptAt <= now : version > checked)) continue;
      due.push({
        id: subscription.id,
        receiver: receiverOf(subscription.url),
        retrying: (p?.pending?.attempts ?? 0) > 0,
        lastStarted: this.started.get(subscription.id) ?? 0,
      });
    }
    this.lags = lags;
    for (const id of this.started.keys()) if (!subscriptions.has(id)) this.started.delete(id);
    if (this.stopping.signal.aborted) return;
    const limits = { slots: concurrency, perReceiver, retrySlots: retrySlotsOf(concurrency) };
    for (const chosen of chooseStarts(due, this.running.values(), limits))
      this.begin(subscriptions.get(chosen.id)!, chosen, now);
  }

  /** Starts delivering a subscription in a slot of its own until it has nothing more to send. */
  private begin(subscription: WebhookSubscription, slot: RunningDelivery, now: number): void {
    this.started.set(subscription.id, now);
    const task = this.subscriptions
      .deliver(subscription)
      .catch((error: unknown) =>
        this.failed(
          error,
          { subscription: subscription.id },
          'webhook delivery: a subscription round failed',
        ),
      )
      .finally(() => {
        this.running.delete(subscription.id);
        this.freed();
      });
    this.running.set(subscription.id, { receiver: slot.receiver, retrying: slot.retrying, task });
  }
}
