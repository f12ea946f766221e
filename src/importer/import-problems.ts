/** A reason an import is refused, tied to a file and, when it concerns a row, its physical line. */
export interface ImportProblem {
  file: string;
  line?: number;
  message: string;
}

/** Problems listed before the rest are summarised in one line. */
export const PROBLEM_CAP = 100;

/** Where checks put the problems they find. */
export interface ProblemSink {
  push(problem: ImportProblem): void;
}

/** Problems kept in memory at most; beyond them only the count grows (a file of any size). */
export const PROBLEMS_KEPT = 10_000;

/** Problems in the order they are listed: by file, then line (stable: a line's in the order found). */
const byPlace = (a: ImportProblem, b: ImportProblem): number =>
  (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || (a.line ?? 0) - (b.line ?? 0);

/**
 * Keeps the PROBLEMS_KEPT problems that come first in a file's order (by file, then line), and
 * counts them all: what is kept does not depend on the order the checks ran in (a staged import
 * finds a file's references after its rows' own problems).
 */
export class CappedProblems implements ProblemSink {
  private kept: ImportProblem[] = [];
  total = 0;

  push(problem: ImportProblem): void {
    this.total++;
    this.kept.push(problem);
    if (this.kept.length >= 2 * PROBLEMS_KEPT) this.trim();
  }

  private trim(): void {
    if (this.kept.length > PROBLEMS_KEPT)
      this.kept = this.kept.sort(byPlace).slice(0, PROBLEMS_KEPT);
  }

  /** The problems kept, by file and line. */
  get list(): ImportProblem[] {
    this.trim();
    return this.kept;
  }
}

/**
 * `file:line: message` lines, by file then line, at most `cap` of them plus a count of the rest
 * (of `total`, when more were found than kept).
 */
export function formatProblems(
  problems: readonly ImportProblem[],
  cap = PROBLEM_CAP,
  total = problems.length,
): string[] {
  const sorted = [...problems].sort(byPlace);
  const lines = sorted
    .slice(0, cap)
    .map((p) =>
      p.line === undefined ? `${p.file}: ${p.message}` : `${p.file}:${p.line}: ${p.message}`,
    );
  const more = total - Math.min(cap, sorted.length);
  if (more > 0) lines.push(`… and ${more} more problem${more === 1 ? '' : 's'}`);
  return lines;
}

/** A value as it appears in a message: JSON, shortened so one bad cell cannot flood the output. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
