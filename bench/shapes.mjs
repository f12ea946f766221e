// Report query shapes for the benchmarks that drive many distinct ones (`soak.mjs`,
// `shape-memory.mjs`): a seeded PRNG, the catalog's views, filter values read from the data, and a
// generator of query bodies whose compiled SQL differs from one to the next.

/** mulberry32: a small deterministic PRNG, so a seed gives the same sequence of report shapes. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (xs) => xs[Math.floor(next() * xs.length)];
  const sample = (xs, n) => {
    const copy = [...xs];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [copy[i], copy[j]] = [copy[j], copy[i]];
    }
    return copy.slice(0, n);
  };
  /** Picks a key of `weights` ({key: weight}) in proportion to its weight. */
  const weighted = (weights) => {
    const entries = Object.entries(weights);
    let r = next() * entries.reduce((s, [, w]) => s + w, 0);
    for (const [key, w] of entries) if ((r -= w) < 0) return key;
    return entries[entries.length - 1][0];
  };
  return { next, int, pick, sample, weighted };
}

/** Views as the catalog shows them: queryable metrics grouped by their (identical) dimension lists. */
export function viewsOf(catalog) {
  const timeDims = new Set(catalog.dimensions.filter((d) => d.type === 'time').map((d) => d.key));
  const byDims = new Map();
  for (const m of catalog.metrics) {
    if (m.evaluative) continue;
    const key = JSON.stringify(m.dimensions);
    if (!byDims.has(key)) {
      byDims.set(key, {
        metrics: [],
        dimensions: m.dimensions,
        timeDim: m.dimensions.find((d) => timeDims.has(d)) ?? null,
      });
    }
    byDims.get(key).metrics.push(m.key);
  }
  return [...byDims.values()];
}

/** What changes the SQL the server compiles (filter values, dates and limits are parameters). */
export function shapeKey(query, hasRange, view) {
  const dims = query.dimensions ?? [];
  const order = (query.order ?? []).map((o) => `${o.key}:${o.direction}`);
  for (const d of dims) if (!order.some((o) => o.startsWith(`${d}:`))) order.push(`${d}:asc`);
  return JSON.stringify([
    query.metrics,
    dims,
    view.timeDim && dims.includes(view.timeDim) ? (query.timeGrain ?? null) : null,
    (query.filters ?? []).map((f) => [f.dimension, f.operator, f.values.length]),
    hasRange,
    order,
  ]);
}

export const addDays = (iso, days) =>
  new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Report query bodies from `rng`: mostly shapes not sent before (metric sets, dimension subsets,
 * filters of every operator with 1–100 `in` values, grains, orders, limits, time ranges and
 * periods), a `repeatShare` of them a recent shape again (a cache hit).
 */
export function shapeGenerator(rng, views, pools, spans, repeatShare = 0) {
  const sent = new Set();
  const recent = [];
  const randomDate = (view) => {
    const { from, days } = spans.get(view);
    return addDays(from, rng.int(0, days));
  };
  const filterValues = (view, dimension, n) => {
    if (dimension === view.timeDim) return Array.from({ length: n }, () => randomDate(view));
    const pool = pools.get(view).get(dimension) ?? [];
    const out = rng.sample(pool, Math.min(n, pool.length));
    // Values that match nothing when the dimension has fewer distinct values than wanted; some
    // as integers, which the server compares as their decimal text.
    for (let i = out.length; i < n; i++) out.push(rng.next() < 0.3 ? 90000 + i : `zz-soak-${i}`);
    return out;
  };
  const filter = (view) => {
    const dimension = rng.pick(view.dimensions);
    const operator = rng.weighted({ eq: 2, neq: 1, in: 4, gte: 1, lte: 1, between: 1 });
    const n = { eq: 1, neq: 1, gte: 1, lte: 1, between: 2, in: rng.int(1, 100) }[operator];
    const vals = filterValues(view, dimension, n);
    if (operator === 'between') vals.sort((a, b) => (String(a) < String(b) ? -1 : 1));
    return { dimension, operator, values: vals };
  };
  const fresh = () => {
    const view = rng.pick(views);
    const metrics = rng.sample(view.metrics, rng.int(1, Math.min(4, view.metrics.length)));
    const dimensions = rng.sample(
      view.dimensions,
      Number(rng.weighted({ 0: 1, 1: 3, 2: 3.5, 3: 2, 4: 0.5 })),
    );
    const query = { metrics };
    if (dimensions.length || rng.next() < 0.5) query.dimensions = dimensions;
    if (view.timeDim && dimensions.includes(view.timeDim)) {
      const grain = rng.pick(['day', 'week', 'month', 'month', 'quarter', 'year', null]);
      if (grain !== null || rng.next() < 0.5) query.timeGrain = grain;
    }
    const nFilters = Number(rng.weighted({ 0: 2.5, 1: 3.5, 2: 2.5, 3: 1.5 }));
    if (nFilters || rng.next() < 0.3)
      query.filters = Array.from({ length: nFilters }, () => filter(view));
    const body = { query };
    const range = rng.weighted({ none: 3, timeRange: 6, period: 1 });
    if (range === 'timeRange') {
      // Mostly short ranges, as dashboards ask: they read a slice of the fact table, not all of it.
      const from = randomDate(view);
      const to = addDays(from, rng.int(0, rng.pick([7, 31, 92, 92, 366, 1100])));
      query.timeRange = { from, to };
    } else if (range === 'period') {
      body.period =
        rng.next() < 0.6
          ? {
              kind: 'relative',
              unit: rng.pick(['month', 'quarter', 'year']),
              offset: -rng.int(0, 24),
            }
          : { kind: 'quarter', quarter: rng.int(1, 4), year: rng.int(2023, 2026) };
    }
    const orderable = [...metrics, ...dimensions];
    const nOrder = Number(rng.weighted({ 0: 4, 1: 4, 2: 2 }));
    if (nOrder || rng.next() < 0.2) {
      query.order = rng
        .sample(orderable, Math.min(nOrder, orderable.length))
        .map((key) => ({ key, direction: rng.pick(['asc', 'desc']) }));
    }
    if (rng.next() < 0.8) query.limit = rng.pick([1, 5, 10, 25, 50, 100, 100, 200, 500, 1000]);
    return { body, key: shapeKey(query, range !== 'none', view) };
  };
  return {
    /** The next query body: mostly a shape not sent before, sometimes a recent one again. */
    next() {
      if (recent.length > 0 && rng.next() < repeatShare)
        return { ...rng.pick(recent), repeat: true };
      let shape;
      for (let i = 0; i < 50; i++) {
        shape = fresh();
        if (!sent.has(shape.key)) break;
      }
      sent.add(shape.key);
      recent.push(shape);
      if (recent.length > 200) recent.shift();
      return { ...shape, repeat: false };
    },
  };
}

/**
 * What filters draw their values from, read with `rowsOf(query)` (a report query's rows): each
 * categorical dimension's values per view, and each view's span of dates.
 */
export async function valuePools(views, rowsOf) {
  const plain = (v) => (v && typeof v === 'object' ? v.value : v);
  const pools = new Map();
  const spans = new Map();
  for (const view of views) {
    const metrics = [view.metrics[0]];
    const byDimension = new Map();
    for (const dimension of view.dimensions) {
      if (dimension === view.timeDim) continue;
      const rows = await rowsOf({ metrics, dimensions: [dimension], limit: 1000 });
      byDimension.set(
        dimension,
        rows.map((r) => plain(r[dimension])).filter((v) => v != null),
      );
    }
    pools.set(view, byDimension);
    const months = view.timeDim
      ? (
          await rowsOf({
            metrics,
            dimensions: [view.timeDim],
            timeGrain: 'month',
            limit: 1000,
          })
        )
          .map((r) => r[view.timeDim])
          .filter(Boolean)
      : [];
    const from = months[0] ?? '2023-07-01';
    const to = addDays(months.at(-1) ?? '2026-06-01', 30);
    spans.set(view, { from, days: Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) });
  }
  return { pools, spans };
}
