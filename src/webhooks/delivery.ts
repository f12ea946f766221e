/**
 * Webhook delivery inside `serve` (DESIGN §4.14). Every `pollMs` the loop renews the leases it
 * holds, reads the data version and every subscription's progress, and starts a task for each
 * active subscription with something due: a delivery whose retry time has come, or data versions
 * it has not looked at. A task claims the subscription's lease (one instance delivers it at a
 * time; another takes over when the lease lapses), then, in version order, builds the next page
 * (subscription-page.ts), stores it as the pending delivery before sending it (a restart sends
 * the same id and body again), signs it (message.ts), posts it (post.ts: the address rules, no
 * redirects, a time limit) and judges the answer (retries.ts). A 2xx moves the feed past it and
 * goes on to the next page; a failure schedules a retry; a 410 disables the subscription; three
 * days of failures mark it failing.
 *
 * At most `concurrency` subscriptions are delivered at once, each holding one page: a slow or
 * dead receiver holds one slot for at most the time limit per try, and is tried again only
 * after its retry gap, so it delays no one else.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { DEFAULT_WEBHOOK_LEASE_MS } from '../config.js';
import { StoreBusyError } from '../errors.js';
import { principalOfKey } from '../auth/key-principal.js';
import { liveKey } from '../auth/tokens.js';
import type { SubscriptionLag, WebhookMeters } from '../metrics/webhook-metrics.js';
import type { Executor } from '../operations/executor.js';
import type { PendingDelivery } from '../store/sql/webhook-progress.js';
import type { WebhookState, WebhookSubscription } from '../store/sql/webhook-subscriptions.js';
import type { Store } from '../store/store.js';
import { checkUrlForm } from './addresses.js';
import { messageBody, signedHeaders } from './message.js';
import { postWebhook, STOPPED, type PostOutcome } from './post.js';
import { DEFAULT_RETRY_MS, judgeAttempt, type Verdict } from './retries.js';
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
  /** A try's time limit (default 10 s, DESIGN §4.14). */
  timeoutMs?: number;
  /** How host names resolve when connecting (tests); the system's by default. */
  resolve?: (host: string) => Promise<string[]>;
}

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

const DEFAULT_POLL_MS = 200;
const DEFAULT_CONCURRENCY = 32;
/** How much of a refusing receiver's answer the attempt log keeps. */
const ANSWER_KEPT = 200;

/** What one try came to, as the attempt log keeps it. */
function describe(outcome: PostOutcome): { status: number | null; error: string | null } {
  if ('error' in outcome) return { status: null, error: outcome.error };
  const ok = outcome.status >= 200 && outcome.status < 300;
  // A refusal's first words, on one line of printable text: the log is read by people.
  const said = outcome.body
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim()
    .slice(0, ANSWER_KEPT);
  return { status: outcome.status, error: ok || said === '' ? null : said };
}

export class WebhookDelivery {
  /** This instance's name on the leases it holds. */
  readonly owner = `dlv_${randomBytes(8).toString('hex')}`;
  private readonly running = new Map<string, Promise<void>>();
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  private lags: SubscriptionLag[] = [];
  /** Whether this instance has claimed a lease, and when it last renewed them. */
  private holding = false;
  private renewedAt = 0;
  private readonly now: () => number;
  private readonly settings: Required<Omit<DeliverySettings, 'resolve'>> &
    Pick<DeliverySettings, 'resolve'>;

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
      timeoutMs: 10_000,
      ...settings,
    };
    deps.meters?.watch(() => this.lags);
  }

  start(): void {
    const next = () => {
      if (this.stopping.signal.aborted) return;
      this.timer = setTimeout(() => {
        this.ticking = this.tick()
          .catch((error: unknown) => this.failed(error, {}, 'webhook delivery: a round failed'))
          .finally(next);
      }, this.settings.pollMs);
    };
    next();
  }

  /** Stops looking for work, ends tries under way, and gives up the leases held. */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await Promise.allSettled(this.running.values());
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
    const { leaseMs, concurrency } = this.settings;
    const now = this.now();
    // Renewed every third of a lease: a write, which SQLite cannot make while an import runs.
    if (this.holding && now - this.renewedAt >= leaseMs / 3) {
      await webhooks.renewLeases(this.owner, now, leaseMs);
      this.renewedAt = now;
    }
    const { version } = await this.deps.store.dataVersion();
    const progress = new Map((await webhooks.listProgress()).map((p) => [p.subscriptionId, p]));
    const lags: SubscriptionLag[] = [];
    for (const subscription of await webhooks.listWebhooks()) {
      if (subscription.state !== 'active') continue;
      const p = progress.get(subscription.id);
      const checked = p?.checkedVersion ?? subscription.fromVersion;
      lags.push({
        subscription: subscription.id,
        versions: Math.max(0, version - checked),
        seconds: p?.pending ? Math.max(0, (now - p.pending.pendingSince) / 1000) : 0,
      });
      if (this.running.has(subscription.id) || this.running.size >= concurrency) continue;
      if (p?.leaseOwner && p.leaseOwner !== this.owner && p.leaseUntil >= now) continue;
      const due = p?.pending ? p.pending.nextAttemptAt <= now : version > checked;
      if (!due || this.stopping.signal.aborted) continue;
      const task = this.deliver(subscription)
        .catch((error: unknown) =>
          this.failed(
            error,
            { subscription: subscription.id },
            'webhook delivery: a subscription round failed',
          ),
        )
        .finally(() => this.running.delete(subscription.id));
      this.running.set(subscription.id, task);
    }
    this.lags = lags;
  }

  /** Delivers one subscription's pages in order while they are acknowledged. */
  private async deliver(subscription: WebhookSubscription): Promise<void> {
    const { store, executor } = this.deps;
    const webhooks = store.webhookDelivery();
    const key = await liveKey(store, subscription.tokenId, this.now());
    const principal = key ? await principalOfKey(store, key) : null;
    if (!principal) {
      // Revoking (or the expiry of) its key disables a subscription.
      await this.setState(subscription, 'disabled', 'its access key was revoked or expired');
      return;
    }
    await webhooks.startProgress(subscription.id, startPosition(subscription.fromVersion));
    const { leaseMs } = this.settings;
    if (!(await webhooks.claim(subscription.id, this.owner, this.now(), leaseMs))) return;
    this.holding = true;
    while (!this.stopping.signal.aborted) {
      const progress = await webhooks.findProgress(subscription.id);
      if (progress === null || progress.leaseOwner !== this.owner) return;
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
          await webhooks.advance(subscription.id, this.owner, page.next, checked);
          if (page.hasMore) continue;
          return;
        }
        pending = this.pendingOf(subscription, page);
        // Kept only if nothing changed since the page was read: else read again next round.
        if (!(await webhooks.setPending(subscription.id, this.owner, pending, version))) return;
      }
      if (pending.nextAttemptAt > this.now()) return;
      if ((await this.attempt(subscription, pending)) !== 'delivered') return;
    }
  }

  private pendingOf(
    subscription: WebhookSubscription,
    page: Exclude<Awaited<ReturnType<typeof subscriptionPage>>, 'cursor_expired'>,
  ): PendingDelivery {
    const dataVersion = page.items[page.items.length - 1].version;
    const now = this.now();
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
    const webhooks = this.deps.store.webhookDelivery();
    const { allowInsecure, timeoutMs, resolve, retryMs } = this.settings;
    const started = this.now();
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
        signal: this.stopping.signal,
      });
    } catch (error) {
      outcome = { error: (error as Error).message };
    }
    if ('error' in outcome && outcome.error === STOPPED && this.stopping.signal.aborted)
      return 'stopped';
    const ended = this.now();
    const { status, error } = describe(outcome);
    const verdict = judgeAttempt(status, pending.attempts, pending.firstFailedAt, ended, retryMs);
    this.deps.meters?.attempted(verdict.next, (ended - started) / 1000);
    const firstFailedAt = pending.firstFailedAt ?? started;
    // The log is for people: a busy store that refuses its line does not hold the delivery up.
    const logged = webhooks.recordAttempt({
      subscriptionId: subscription.id,
      messageId: pending.messageId,
      attempt: pending.attempts + 1,
      at: started,
      dataVersion: pending.dataVersion,
      items: pending.items,
      status,
      error,
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
    const webhooks = this.deps.store.webhookDelivery();
    switch (verdict.next) {
      case 'delivered':
        return (await webhooks.delivered(subscription.id, this.owner, pending.messageId, ended))
          ? 'delivered'
          : 'stopped';
      case 'retry':
        await webhooks.failed(
          subscription.id,
          this.owner,
          pending.messageId,
          firstFailedAt,
          verdict.at,
        );
        return 'retry';
      case 'failing':
        await webhooks.failed(subscription.id, this.owner, pending.messageId, firstFailedAt, ended);
        await this.setState(subscription, 'failing', 'no 2xx answer for 3 days');
        return 'failing';
      case 'disabled':
        await this.setState(subscription, 'disabled', 'the receiver answered 410 Gone');
        return 'disabled';
    }
  }

  private async setState(subscription: WebhookSubscription, state: WebhookState, why: string) {
    await this.deps.store
      .webhooks()
      .setWebhookState(subscription.id, state, new Date(this.now()).toISOString());
    // Never the URL (it may carry a receiver's own token) nor the secret.
    this.deps.log.info({ subscription: subscription.id }, `webhook ${state}: ${why}`);
  }
}
