import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * Webhook delivery metrics (DESIGN §4.14, docs/operations.md#webhooks). The `outcome` label is
 * one of four words; the `subscription` label is a subscription id (`whk_…`), a set an operator
 * makes with `webhook create` and that is as small as the number of subscriptions, never a value
 * a request could choose.
 */

export const DELIVERY_OUTCOMES = ['delivered', 'retry', 'failing', 'disabled'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** How far a subscription is behind, as the delivering instance last saw it. */
export interface SubscriptionLag {
  subscription: string;
  /** Data versions made since everything it pushes was delivered. */
  versions: number;
  /** Seconds the oldest undelivered delivery has waited (0 when none waits). */
  seconds: number;
}

/** What the delivery records. */
export interface WebhookMeters {
  /** One try's outcome, and how long the receiver took to answer (or fail). */
  attempted(outcome: DeliveryOutcome, seconds: number): void;
  /** Where the gauges read the lag of each active subscription at each scrape. */
  watch(lags: () => readonly SubscriptionLag[]): void;
}

/** Seconds, for receivers that answer in milliseconds and time out at 10 s. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function webhookMeters(registers: Registry[]): WebhookMeters {
  const attempts = new Counter({
    name: 'vms_read_webhook_deliveries_total',
    help: 'Webhook delivery tries, by outcome: delivered (a 2xx), retry (failed, to be tried again), failing (gave up after 3 days), disabled (a 410).',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of DELIVERY_OUTCOMES) attempts.inc({ outcome }, 0);
  const duration = new Histogram({
    name: 'vms_read_webhook_attempt_duration_seconds',
    help: 'Time a webhook receiver took to answer a try (or to fail it: a time-out, a refused connection).',
    buckets: BUCKETS,
    registers,
  });
  let lags: () => readonly SubscriptionLag[] = () => [];
  const gauge = (name: string, help: string, read: (lag: SubscriptionLag) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['subscription'] as const,
      registers,
      collect() {
        this.reset();
        for (const lag of lags()) this.set({ subscription: lag.subscription }, read(lag));
      },
    });
  gauge(
    'vms_read_webhook_lag_versions',
    'Data versions made since everything an active subscription pushes was delivered, per subscription.',
    (lag) => lag.versions,
  );
  gauge(
    'vms_read_webhook_lag_seconds',
    'Seconds the oldest undelivered delivery of an active subscription has waited, per subscription (0 when caught up).',
    (lag) => lag.seconds,
  );
  return {
    attempted(outcome, seconds) {
      attempts.inc({ outcome });
      duration.observe(seconds);
    },
    watch(source) {
      lags = source;
    },
  };
}
