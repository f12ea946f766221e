/**
 * Writes the `invoices` table: one monthly run per month whose run date has passed by asOf. Lines
 * are grouped into invoices by the supplier's grouping rule; the header needs the sum of its lines,
 * so this pass re-derives each month's billable lines and keeps only one running total per invoice
 * of that month. It returns a small "book" per month (where the month's ids start and which
 * invoices got credit notes) so the line pass (invoice-lines.ts) can assign the same invoice ids.
 * Within a month, invoices are numbered in the order their first worker appears in the roster.
 */
import type { Row } from '../store/sink.js';
import { activeIn, billLines, invoiceGroup, type InvoiceGroup } from './billing-sources.js';
import type { WorkspaceRun } from './context.js';
import { invoiceFate, type ForcedFate } from './invoice-fate.js';
import type { Roster } from './plans.js';

export interface CreditNote {
  id: string;
  /** The credit note reverses this many of the invoice's first positive lines. */
  lines: number;
  createdMs: number;
}

export interface MonthBook {
  month: number;
  /** Invoice sequence of the month's first invoice; invoice with month-seq i is base + i. */
  base: number;
  credits: Map<number, CreditNote>;
}

interface Tally {
  seq: number;
  group: InvoiceGroup;
  totalCents: number;
  firstPositive: number[];
}

/** The steady worker's invoices carry the guaranteed credit note, void and draft (edge-cases.ts). */
function forcedFate(run: WorkspaceRun, m: number, group: InvoiceGroup): ForcedFate {
  if (group.worker?.role !== 'steady') return null;
  if (m === run.edges.giant) return 'credit';
  if (m === run.edges.voided) return 'void';
  if (m === run.edges.lastRun) return 'draft';
  return null;
}

function tallyMonth(run: WorkspaceRun, roster: Roster, m: number): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  for (const plan of roster.workers) {
    if (!activeIn(run, plan, m)) continue;
    const lines = billLines(run, plan, m);
    if (lines.length === 0) continue;
    const group = invoiceGroup(run, plan);
    let tally = tallies.get(group.key);
    if (!tally) {
      tally = { seq: tallies.size, group, totalCents: 0, firstPositive: [] };
      tallies.set(group.key, tally);
    }
    for (const line of lines) {
      tally.totalCents += line.amountCents;
      if (line.amountCents > 0 && tally.firstPositive.length < 3)
        tally.firstPositive.push(line.amountCents);
    }
  }
  return tallies;
}

interface HeaderFields {
  id: string;
  type: 'invoice' | 'credit_note';
  number: string | null;
  status: string;
  totalCents: number;
  correctsInvoiceRef: string | null;
  issuedMs: number | null;
  createdMs: number;
  updatedMs: number;
}

/** An `invoices` row, columns in schema order; a credit note shares its invoice's group and period. */
function invoiceRow(run: WorkspaceRun, m: number, group: InvoiceGroup, f: HeaderFields): Row {
  const { cal } = run;
  const month = cal.months[m];
  return {
    id: f.id,
    workspace_id: run.ws.id,
    supplier_ref: group.supplier?.code ?? null,
    type: f.type,
    number: f.number,
    status: f.status,
    grouping_rule: group.rule,
    group_key: group.groupKey,
    period_start: month.startDate,
    period_end: month.endDate,
    currency: group.currency,
    total_cents: f.totalCents,
    config_version: 1,
    corrects_invoice_ref: f.correctsInvoiceRef,
    issued_at: f.issuedMs === null ? null : cal.stamp(f.issuedMs),
    created_at: cal.stamp(f.createdMs),
    updated_at: cal.stamp(f.updatedMs),
  };
}

export async function writeInvoices(run: WorkspaceRun, roster: Roster): Promise<MonthBook[]> {
  const out = run.writer('invoices');
  const books: MonthBook[] = [];
  const prefix = run.ws.short.toUpperCase();
  let base = 1;
  for (let m = run.edges.firstRun; m <= run.edges.lastRun; m++) {
    const label = run.cal.months[m].label;
    const tallies = tallyMonth(run, roster, m);
    const book: MonthBook = { month: m, base, credits: new Map() };
    // Credit notes follow the month's invoices; there are few, so they wait in memory.
    const creditRows: Row[] = [];
    for (const t of tallies.values()) {
      const fate = invoiceFate(run, m, t.seq, forcedFate(run, m, t.group), m === run.edges.lastRun);
      const id = run.id('inv', base + t.seq);
      const number =
        fate.status === 'draft' ? null : `${prefix}-${label}-${String(t.seq + 1).padStart(5, '0')}`;
      const row = invoiceRow(run, m, t.group, {
        id,
        type: 'invoice',
        number,
        status: fate.status,
        totalCents: t.totalCents,
        correctsInvoiceRef: null,
        issuedMs: fate.issuedMs,
        createdMs: fate.createdMs,
        updatedMs: fate.updatedMs,
      });
      if (out.push(row)) await out.flush();
      const credit = fate.credit;
      if (credit === null || t.firstPositive.length === 0) continue;
      const lines = Math.min(credit.lines, t.firstPositive.length);
      const creditId = run.id('inv', base + tallies.size + creditRows.length);
      book.credits.set(t.seq, { id: creditId, lines, createdMs: credit.createdMs });
      creditRows.push(
        invoiceRow(run, m, t.group, {
          id: creditId,
          type: 'credit_note',
          number: `CN-${prefix}-${label}-${String(creditRows.length + 1).padStart(4, '0')}`,
          status: credit.status,
          totalCents: -t.firstPositive.slice(0, lines).reduce((a, b) => a + b, 0),
          correctsInvoiceRef: id,
          issuedMs: credit.issuedMs,
          createdMs: credit.createdMs,
          updatedMs: credit.updatedMs,
        }),
      );
    }
    for (const row of creditRows) if (out.push(row)) await out.flush();
    base += tallies.size + creditRows.length;
    books.push(book);
  }
  await run.finish(out);
  return books;
}
