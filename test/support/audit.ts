import type { AuditSql } from '../../src/store/sql/audit/audit-records.js';
import type { Harness } from './harness.js';

/**
 * The SQL of the store's access trail, where it is kept (on SQLite a file of its own beside the
 * database): what a test reads or tampers with to prove what the trail holds.
 */
export function auditSqlOf(h: Pick<Harness, 'store'>): AuditSql {
  return (h.store as unknown as { auditSql(): AuditSql }).auditSql();
}
