/**
 * Supplier plans. The first few suppliers of every workspace have fixed traits (edge-cases.ts);
 * the rest draw a grouping rule (how their invoices are split), a home currency and, rarely, an
 * unusual name. Codes are short ASCII ("NS-001"); names carry the people-typed text.
 */
import { MINUTE_MS } from './calendar.js';
import type { WorkspaceRun } from './context.js';
import { CURRENCIES, SPECIAL_SUPPLIERS, type GroupingRule } from './edge-cases.js';
import { initials, SUPPLIER_NAMES, UNUSUAL_KINDS, unusualLabel } from './people-text.js';
import { Stream } from './random.js';

export interface SupplierPlan {
  index: number;
  id: string;
  code: string;
  name: string;
  /** Base name without decoration, for email domains. */
  plainName: string;
  currency: string;
  rule: GroupingRule;
  active: boolean;
  createdMs: number;
}

export function planSupplier(run: WorkspaceRun, index: number): SupplierPlan {
  const rng = run.rng(Stream.Supplier, index);
  const special = SPECIAL_SUPPLIERS[index];
  const plainName =
    SUPPLIER_NAMES[index % SUPPLIER_NAMES.length] +
    (index >= SUPPLIER_NAMES.length ? ` ${Math.floor(index / SUPPLIER_NAMES.length) + 1}` : '');
  const rules: GroupingRule[] = ['per_org_unit', 'per_worker', 'consolidated'];
  const rule = special?.rule ?? rules[rng.weighted([0.5, 0.35, 0.15])];
  const drawn = CURRENCIES[rng.weighted([0.7, 0.18, 0.12])];
  // Consolidated invoices span suppliers in the program's home currency (USD).
  const currency = special?.currency ?? (rule === 'consolidated' ? 'USD' : drawn);
  const kind = special ? special.nameKind : rng.chance(0.05) ? rng.pick(UNUSUAL_KINDS) : null;
  return {
    index,
    id: run.id('sup', index + 1),
    code: `${initials(plainName)}-${String(index + 1).padStart(3, '0')}`,
    name: kind ? unusualLabel(plainName, kind, rng) : plainName,
    plainName,
    currency,
    rule,
    active: special !== undefined || !rng.chance(0.1),
    // Suppliers are onboarded in the first hour of the span, before any worker.
    createdMs: run.cal.startMs + 5 * MINUTE_MS + index * 17_000 + rng.int(0, 999),
  };
}
