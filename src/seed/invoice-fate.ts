/**
 * What happens to an invoice after the monthly run creates it: issued a few days later (or still a
 * draft at asOf, or held back as a draft in the last run), then often pushed to accounts payable;
 * about 1% are voided and about 2% get a credit note. As with timesheets, times are drawn first and
 * the status is what they make true at asOf, so `number`/`issued_at` are NULL exactly on drafts.
 */
import { DAY_MS, HOUR_MS } from './calendar.js';
import type { WorkspaceRun } from './context.js';
import { invoiceRunMs } from './edge-cases.js';
import { Stream } from './random.js';

export type InvoiceStatus = 'draft' | 'issued' | 'pushed' | 'void';
export type ForcedFate = 'draft' | 'void' | 'credit' | null;

export interface CreditFate {
  createdMs: number;
  issuedMs: number;
  status: 'issued' | 'pushed';
  updatedMs: number;
  /** How many of the invoice's first positive lines the credit note reverses. */
  lines: number;
}

export interface InvoiceFate {
  createdMs: number;
  status: InvoiceStatus;
  issuedMs: number | null;
  updatedMs: number;
  credit: CreditFate | null;
}

/** Creation time of the month's seq-th invoice; lines share it. Both invoicing passes use it. */
export function invoiceCreatedMs(run: WorkspaceRun, m: number, seq: number): number {
  return invoiceRunMs(run.cal, m) + seq * 1_000 + run.rng(Stream.Invoice, m, seq).int(0, 999);
}

export function invoiceFate(
  run: WorkspaceRun,
  m: number,
  seq: number,
  forced: ForcedFate,
  lastRun: boolean,
): InvoiceFate {
  const end = run.cal.asOfEndMs;
  const rng = run.rng(Stream.Invoice, m, seq);
  const createdMs = invoiceRunMs(run.cal, m) + seq * 1_000 + rng.int(0, 999);
  const issuedMs = createdMs + rng.int(DAY_MS, 4 * DAY_MS);
  const pushedMs = issuedMs + rng.int(2 * HOUR_MS, 3 * DAY_MS);
  const voidMs = issuedMs + rng.int(DAY_MS, 10 * DAY_MS);
  const held = rng.chance(0.15) && lastRun;
  const voided = rng.chance(0.01);
  const pushed = rng.chance(0.65);
  const credited = rng.chance(0.02);
  const creditMs = issuedMs + rng.int(3 * DAY_MS, 20 * DAY_MS);
  const creditIssuedMs = creditMs + rng.int(HOUR_MS, DAY_MS);
  const creditPushed = rng.chance(0.5);
  const creditLines = rng.int(1, 3);

  if (forced === 'draft' || (forced === null && held) || issuedMs > end) {
    return { createdMs, status: 'draft', issuedMs: null, updatedMs: createdMs, credit: null };
  }
  if ((forced === 'void' || (forced === null && voided)) && voidMs <= end) {
    return { createdMs, status: 'void', issuedMs, updatedMs: voidMs, credit: null };
  }
  const isPushed = pushed && pushedMs <= end;
  let credit: CreditFate | null = null;
  if ((forced === 'credit' || (forced === null && credited)) && creditIssuedMs <= end) {
    const creditPushedMs = creditIssuedMs + DAY_MS;
    const cnPushed = creditPushed && creditPushedMs <= end;
    credit = {
      createdMs: creditMs,
      issuedMs: creditIssuedMs,
      status: cnPushed ? 'pushed' : 'issued',
      updatedMs: cnPushed ? creditPushedMs : creditIssuedMs,
      lines: creditLines,
    };
  }
  return {
    createdMs,
    status: isPushed ? 'pushed' : 'issued',
    issuedMs,
    updatedMs: isPushed ? pushedMs : issuedMs,
    credit,
  };
}
