import type { AuditCheckReads, DaySet } from '../store/sql/audit/audit-check-reads.js';
import { workersOf, type AuditEvent } from './event.js';

/** Where the trail stops holding: a chain's place (or a set's event), and what is wrong there. */
export interface ChainBreak {
  chainId: string;
  /** The place where the chain should have gone on, or the event the problem is found at. */
  seq: number;
  problem:
    | 'changed'
    | 'missing'
    | 'does not follow'
    | 'misfiled'
    | 'unaccounted'
    | 'set rows'
    | 'head not reached';
  detail: string;
}

/** The workers an event's JSON reveals; none when it is not JSON (its chain's walk says changed). */
function workersOfJson(json: string): string[] {
  try {
    return workersOf(JSON.parse(json) as AuditEvent);
  } catch {
    return [];
  }
}

/** Sets whose workers are remembered while the days are walked (then forgotten at once). */
const KNOWN_SETS = 50_000;
/** Set breaks reported at most: the first ones say enough. */
const MAX_BREAKS = 20;
/** Before any day a trail can hold. */
const FIRST_DAY = -100_000_000;

/**
 * "Who saw this worker" reads `audit_set_workers` (the workers each day's set names) joined to the
 * events of that day that named the set. So, day by day: every worker a set reveals has its row
 * (a row deleted would hide events), and no row of a set that day's events named says a worker
 * the set does not reveal (a row edited or added would show events that never revealed that
 * worker). Rows of a set no event of that day names find nothing and change nothing a search
 * returns (retention leaves such rows on the first kept day). The events' own columns were
 * checked against what they hold by the chains' walk, so a set's id says its records.
 */
export async function verifySets(records: AuditCheckReads): Promise<ChainBreak[]> {
  const breaks: ChainBreak[] = [];
  const workersBySet = new Map<string, string[]>();
  const workersOfSet = async (set: DaySet, day: number): Promise<string[]> => {
    const setId = set.setId;
    const known = workersBySet.get(setId);
    if (known) return known;
    const json = await records.auditSetEvent(set, day);
    const workers = json === null ? [] : workersOfJson(json);
    if (workersBySet.size >= KNOWN_SETS) workersBySet.clear();
    workersBySet.set(setId, workers);
    return workers;
  };
  for (
    let day = await records.auditNextDay(FIRST_DAY);
    day !== null && breaks.length < MAX_BREAKS;
    day = await records.auditNextDay(day + 1)
  ) {
    const sets = new Map<string, { chainId: string; seq: number; workers: Set<string> }>();
    for (const set of await records.auditDaySets(day)) {
      const key = `${set.workspaceId}\t${set.setId}`;
      if (!sets.has(key))
        sets.set(key, {
          chainId: set.chainId,
          seq: set.seq,
          workers: new Set(await workersOfSet(set, day)),
        });
    }
    const rows = new Map<string, Set<string>>();
    for (const row of await records.auditDaySetWorkers(day)) {
      const key = `${row.workspaceId}\t${row.setId}`;
      const set = sets.get(key);
      if (set && !set.workers.has(row.workerId))
        breaks.push({
          chainId: set.chainId,
          seq: set.seq,
          problem: 'set rows',
          detail: `a row of its set names worker ${row.workerId}, whom the set does not reveal`,
        });
      rows.set(key, (rows.get(key) ?? new Set()).add(row.workerId));
    }
    for (const [key, set] of sets) {
      const missing = [...set.workers].find((worker) => !rows.get(key)?.has(worker));
      if (missing !== undefined)
        breaks.push({
          chainId: set.chainId,
          seq: set.seq,
          problem: 'set rows',
          detail: `its set reveals worker ${missing}, but no row of the set says so`,
        });
    }
  }
  return breaks.slice(0, MAX_BREAKS);
}
