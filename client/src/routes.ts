// Generated from docs/openapi.json by `npm run openapi`: do not edit.

/** Each operation's method and path. */
export const ROUTES = {
  list_catalog: { method: 'get', path: '/api/v1/reports/catalog' },
  run_semantic_query: { method: 'post', path: '/api/v1/reports/query' },
  list_saved_queries: { method: 'get', path: '/api/v1/reports/saved-queries' },
  run_saved_query: { method: 'post', path: '/api/v1/reports/saved-queries/run' },
  list_workers: { method: 'get', path: '/api/v1/workers' },
  get_worker: { method: 'get', path: '/api/v1/workers/item' },
  list_timesheets: { method: 'get', path: '/api/v1/timesheets' },
  get_timesheet: { method: 'get', path: '/api/v1/timesheets/item' },
  list_invoices: { method: 'get', path: '/api/v1/invoices' },
  get_invoice: { method: 'get', path: '/api/v1/invoices/item' },
  list_suppliers: { method: 'get', path: '/api/v1/suppliers' },
  list_assignments: { method: 'get', path: '/api/v1/assignments' },
  list_expenses: { method: 'get', path: '/api/v1/expenses' },
  list_approval_statuses: { method: 'get', path: '/api/v1/approval-statuses' },
  list_changes: { method: 'get', path: '/api/v1/changes' },
  list_audit_events: { method: 'get', path: '/api/v1/audit-events' },
} as const;
