import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const WS = 'ws_business';

/** A folder of N new time entries for WS, made from an entry `db` holds. */
export async function entriesDir(
  all: (sql: string) => Promise<Record<string, unknown>[]>,
  n: number,
  prefix = 'te_fault_',
) {
  const [t] = await all(
    `SELECT timesheet_id, assignment_id, worker_id FROM time_entries WHERE workspace_id = '${WS}' ORDER BY id LIMIT 1`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'vms-read-entries-'));
  const lines = [
    'id,timesheet_id,assignment_id,worker_id,work_date,pay_code,quantity_minutes,kind,captured_on_behalf,created_at',
  ];
  for (let i = 0; i < n; i++)
    lines.push(
      `${prefix}${i},${String(t.timesheet_id)},${String(t.assignment_id)},${String(t.worker_id)},2026-06-0${1 + (i % 9)},REG,${30 + (i % 400)},original,0,2026-06-10T09:00:00.000Z`,
    );
  writeFileSync(join(dir, 'time_entries.csv'), `${lines.join('\n')}\n`);
  return dir;
}
