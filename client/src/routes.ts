// Generated from docs/openapi.json by `npm run openapi`: do not edit.

/** Each operation's method, path, the scope it needs (null: any token), whether it is staff's only. */
export const ROUTES = {
  list_catalog: {
    method: 'get',
    path: '/api/v1/reports/catalog',
    scope: 'read:program',
    staffOnly: true,
  },
  run_semantic_query: {
    method: 'post',
    path: '/api/v1/reports/query',
    scope: 'read:financial',
    staffOnly: true,
  },
  list_saved_queries: {
    method: 'get',
    path: '/api/v1/reports/saved-queries',
    scope: 'read:program',
    staffOnly: true,
  },
  run_saved_query: {
    method: 'post',
    path: '/api/v1/reports/saved-queries/run',
    scope: 'read:financial',
    staffOnly: true,
  },
  list_workers: {
    method: 'get',
    path: '/api/v1/workers',
    scope: 'read:workforce',
    staffOnly: false,
  },
  get_worker: {
    method: 'get',
    path: '/api/v1/workers/item',
    scope: 'read:workforce',
    staffOnly: false,
  },
  list_timesheets: {
    method: 'get',
    path: '/api/v1/timesheets',
    scope: 'read:workforce',
    staffOnly: false,
  },
  get_timesheet: {
    method: 'get',
    path: '/api/v1/timesheets/item',
    scope: 'read:workforce',
    staffOnly: false,
  },
  list_invoices: {
    method: 'get',
    path: '/api/v1/invoices',
    scope: 'read:financial',
    staffOnly: false,
  },
  get_invoice: {
    method: 'get',
    path: '/api/v1/invoices/item',
    scope: 'read:financial',
    staffOnly: false,
  },
  list_suppliers: {
    method: 'get',
    path: '/api/v1/suppliers',
    scope: 'read:program',
    staffOnly: false,
  },
  list_assignments: {
    method: 'get',
    path: '/api/v1/assignments',
    scope: 'read:workforce',
    staffOnly: false,
  },
  list_expenses: {
    method: 'get',
    path: '/api/v1/expenses',
    scope: 'read:financial',
    staffOnly: false,
  },
  list_approval_statuses: {
    method: 'get',
    path: '/api/v1/approval-statuses',
    scope: 'read:workforce',
    staffOnly: false,
  },
  list_changes: {
    method: 'get',
    path: '/api/v1/changes',
    scope: null,
    staffOnly: false,
  },
  list_audit_events: {
    method: 'get',
    path: '/api/v1/audit-events',
    scope: 'read:audit',
    staffOnly: true,
  },
} as const;
