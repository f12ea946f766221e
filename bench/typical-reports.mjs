// The three typical report queries of the benchmark: as run_semantic_query bodies for the service,
// and as hand-written SQL for the baseline (same data, same meaning, no compiler).
export const TYPICAL_QUERIES = {
  'spend by supplier and month, one year': {
    // A fixed calendar year, so results do not depend on the day the benchmark runs.
    query: {
      metrics: ['spend'],
      dimensions: ['supplier', 'invoice_period'],
      timeGrain: 'month',
      timeRange: { from: '2025-01-01', to: '2025-12-31' },
      limit: 1000,
    },
  },
  // The same year shifted by two weeks: whole months from a rollup, the edges from the facts.
  'spend by supplier and month, unaligned range': {
    query: {
      metrics: ['spend'],
      dimensions: ['supplier', 'invoice_period'],
      timeGrain: 'month',
      timeRange: { from: '2025-01-15', to: '2025-12-14' },
      limit: 1000,
    },
  },
  'hours by org unit': { query: { metrics: ['hours_worked'], dimensions: ['org_unit'] } },
  'invoice count by status': {
    query: { metrics: ['invoice_count'], dimensions: ['invoice_status'] },
  },
};

export const RAW_REPORTS = {
  'spend by supplier and month, one year': `SELECT l.supplier_ref AS supplier, substr(i.period_start, 1, 7) || '-01' AS month, SUM(l.amount_cents) AS spend
    FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
    WHERE l.workspace_id = 'ws_business' AND i.status IN ('issued', 'pushed') AND i.period_start BETWEEN '2025-01-01' AND '2025-12-31'
    GROUP BY 1, 2 ORDER BY 1, 2`,
  'spend by supplier and month, unaligned range': `SELECT l.supplier_ref AS supplier, substr(i.period_start, 1, 7) || '-01' AS month, SUM(l.amount_cents) AS spend
    FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
    WHERE l.workspace_id = 'ws_business' AND i.status IN ('issued', 'pushed') AND i.period_start BETWEEN '2025-01-15' AND '2025-12-14'
    GROUP BY 1, 2 ORDER BY 1, 2`,
  'hours by org unit': `SELECT a.org_unit_key AS org_unit, SUM(e.quantity_minutes) / 60.0 AS hours
    FROM time_entries e JOIN assignments a ON a.id = e.assignment_id
    WHERE e.workspace_id = 'ws_business' GROUP BY 1 ORDER BY 1`,
  'invoice count by status': `SELECT status, COUNT(*) AS n FROM invoices WHERE workspace_id = 'ws_business' GROUP BY 1 ORDER BY 1`,
};
