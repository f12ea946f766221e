import { listAuditEvents } from './audit-events.js';
import { listChanges } from './changes.js';
import { getInvoice, listInvoices } from './invoices.js';
import type { AnyOperation } from './operation.js';
import { listCatalog, listSavedQueries, runSavedQuery, runSemanticQuery } from './reports.js';
import {
  listApprovalStatuses,
  listAssignments,
  listExpenses,
  listSuppliers,
} from './simple-lists.js';
import { getTimesheet, listTimesheets } from './timesheets.js';
import { getWorker, listWorkers } from './workers.js';

/**
 * Every operation the service offers (SPEC's 14, the change feed of DESIGN §4.11 and the access
 * trail of §4.17); adapters (HTTP, MCP) walk this list and nothing else.
 */
export const OPERATIONS: readonly AnyOperation[] = [
  listCatalog,
  runSemanticQuery,
  listSavedQueries,
  runSavedQuery,
  listWorkers,
  getWorker,
  listTimesheets,
  getTimesheet,
  listInvoices,
  getInvoice,
  listSuppliers,
  listAssignments,
  listExpenses,
  listApprovalStatuses,
  listChanges,
  listAuditEvents,
];
