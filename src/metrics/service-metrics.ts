import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ADDRESS_BOUNDS, type AddressBoundName } from '../address-bounds.js';
import { REFUSAL_MESSAGES } from '../semantic/refusals.js';
import type { PoolState } from '../store/store.js';
import { webhookMeters, type WebhookMeters } from './webhook-metrics.js';

/**
 * Prometheus metrics of one service (docs/operations.md#metrics), in a registry of its own: two
 * services in one process (tests, a benchmark) never share or collide on a metric. Every label
 * value comes from a closed set written in the code (operation names of the registry, HTTP
 * statuses this service answers with, transports, refusal codes, engine and pool names), so no
 * token, workspace or record value can become a label, and the number of series stays bounded.
 */

/** How a request arrived: the REST API, or MCP (streamable HTTP or stdio). */
export type Transport = 'rest' | 'mcp';

/** The `operation` label of a request that is no operation: an unknown path, /healthz, a bad tool call. */
export const NO_OPERATION = 'none';

/** Seconds, for an API that answers most reads in about a millisecond and reports within 10 s. */
const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const REFUSAL_CODES: ReadonlySet<string> = new Set(Object.keys(REFUSAL_MESSAGES));
const ENGINES: ReadonlySet<string> = new Set(['duckdb', 'sqlite', 'postgres']);

/** What the gauges read at each scrape. */
export interface MetricsSources {
  /** The registry's operation names: the only values of the `operation` label besides `none`. */
  operations: readonly string[];
  /** The store's connection pools. */
  pools(): readonly PoolState[];
  /** Report queries running and waiting for a turn (the report gate). */
  reportQueries(): { running: number; waiting: number };
}

/** What report operations record: how long a report query ran on its engine. */
export interface ReportMetrics {
  reportRan(operation: string, engine: string, seconds: number): void;
}

/** What an answered request records: its status and how long it took. */
export interface RequestCounting {
  record(status: number, seconds: number): void;
}

type RequestLabels = 'operation' | 'status' | 'transport';

/**
 * The request meters of one operation on one transport, bound once: a request costs a map lookup
 * by status and prom-client's own increments, no label object of ours.
 */
class RequestMeters implements RequestCounting {
  private readonly byStatus = new Map<number, Counter.Internal>();
  private readonly latency: Histogram.Internal<'operation' | 'transport'>;

  constructor(
    private readonly requests: Counter<RequestLabels>,
    latency: Histogram<'operation' | 'transport'>,
    private readonly quotaRejections: Counter.Internal,
    private readonly operation: string,
    private readonly transport: Transport,
  ) {
    this.latency = latency.labels(operation, transport);
  }

  record(status: number, seconds: number): void {
    let requests = this.byStatus.get(status);
    if (requests === undefined) {
      requests = this.requests.labels(this.operation, String(status), this.transport);
      this.byStatus.set(status, requests);
    }
    requests.inc();
    this.latency.observe(seconds);
    if (status === 429) this.quotaRejections.inc();
  }
}

export class ServiceMetrics implements ReportMetrics {
  readonly registry = new Registry();
  private readonly meters: Record<Transport, ReadonlyMap<string, RequestMeters>>;
  private readonly unnamed: Record<Transport, RequestMeters>;
  private readonly reportDuration: Histogram<'operation' | 'engine'>;
  private readonly refusals: Counter<'operation' | 'code'>;
  private readonly addressRefusals: Counter<'bound'>;
  private readonly operations: ReadonlySet<string>;
  /** What webhook delivery records (webhook-metrics.ts). */
  readonly webhooks: WebhookMeters;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    this.operations = new Set(sources.operations);
    this.webhooks = webhookMeters(registers);
    const requests = new Counter({
      name: 'vms_read_requests_total',
      help: 'Requests answered, by operation (none when not an operation), HTTP status and transport (rest, mcp: one per tool call).',
      labelNames: ['operation', 'status', 'transport'] as const,
      registers,
    });
    const latency = new Histogram({
      name: 'vms_read_request_duration_seconds',
      help: 'Time from receipt to answer of a request, by operation and transport.',
      labelNames: ['operation', 'transport'] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    });
    const quota = new Counter({
      name: 'vms_read_quota_rejections_total',
      help: "Requests refused 429 rate_limited because their token's quota was spent, by transport.",
      labelNames: ['transport'] as const,
      registers,
    });
    this.reportDuration = new Histogram({
      name: 'vms_read_report_query_duration_seconds',
      help: 'Time a report query ran on its engine (duckdb, sqlite, postgres), answers from the result cache excluded, by operation.',
      labelNames: ['operation', 'engine'] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.refusals = new Counter({
      name: 'vms_read_refusals_total',
      help: 'Answers with status refused, by operation and refusal code.',
      labelNames: ['operation', 'code'] as const,
      registers,
    });
    this.addressRefusals = new Counter({
      name: 'vms_read_address_refusals_total',
      help: 'Requests refused 429 by a bound on what one client address may do (DESIGN §4.16), by bound: failedAuthentications, registrations, authorizations, requestsWithoutCredential.',
      labelNames: ['bound'] as const,
      registers,
    });
    for (const bound of Object.keys(ADDRESS_BOUNDS)) this.addressRefusals.labels(bound).inc(0);
    const metersOf = (transport: Transport) => {
      const rejected = quota.labels(transport);
      rejected.inc(0); // a rate of 0 rather than no series until the first 429
      const meters = (operation: string) =>
        new RequestMeters(requests, latency, rejected, operation, transport);
      return {
        named: new Map(sources.operations.map((name) => [name, meters(name)])),
        unnamed: meters(NO_OPERATION),
      };
    };
    const rest = metersOf('rest');
    const mcp = metersOf('mcp');
    this.meters = { rest: rest.named, mcp: mcp.named };
    this.unnamed = { rest: rest.unnamed, mcp: mcp.unnamed };
    poolGauges(registers, sources);
    new Gauge({
      name: 'vms_read_report_queries',
      help: 'Report queries running, and waiting for a turn, now (state running or waiting).',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const { running, waiting } = sources.reportQueries();
        this.set({ state: 'running' }, running);
        this.set({ state: 'waiting' }, waiting);
      },
    });
    // Process metrics under their usual names (process_*, nodejs_*): CPU, memory, event loop lag, GC.
    collectDefaultMetrics({ register: this.registry });
  }

  /** The meters of an operation (by its registry name) on a transport; `none` for anything else. */
  requestMeters(operation: string | undefined, transport: Transport): RequestCounting {
    return (
      (operation !== undefined && this.meters[transport].get(operation)) || this.unnamed[transport]
    );
  }

  reportRan(operation: string, engine: string, seconds: number): void {
    this.reportDuration.observe(
      {
        operation: this.operations.has(operation) ? operation : NO_OPERATION,
        engine: ENGINES.has(engine) ? engine : 'other',
      },
      seconds,
    );
  }

  refused(operation: string, code: string): void {
    this.refusals.inc({
      operation: this.operations.has(operation) ? operation : NO_OPERATION,
      code: REFUSAL_CODES.has(code) ? code : 'other',
    });
  }

  addressRefused(bound: AddressBoundName): void {
    this.addressRefusals.labels(bound).inc();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text format of every metric now. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Connections open, idle, and queries waiting, per pool of the store, read at each scrape. */
function poolGauges(registers: Registry[], sources: MetricsSources): void {
  const gauge = (name: string, help: string, read: (pool: PoolState) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'] as const,
      registers,
      collect() {
        for (const pool of sources.pools()) this.set({ pool: pool.pool }, read(pool));
      },
    });
  gauge(
    'vms_read_store_pool_connections',
    'Connections open in a store pool (reads, reports), busy or idle.',
    (pool) => pool.total,
  );
  gauge(
    'vms_read_store_pool_idle_connections',
    'Idle connections in a store pool.',
    (pool) => pool.idle,
  );
  gauge(
    'vms_read_store_pool_waiting_queries',
    'Queries waiting for a connection of a store pool.',
    (pool) => pool.waiting,
  );
}
