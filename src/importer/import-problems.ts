/** A reason an import is refused, tied to a file and, when it concerns a row, its physical line. */
export interface ImportProblem {
  file: string;
  line?: number;
  message: string;
}

/** Problems listed before the rest are summarised in one line. */
export const PROBLEM_CAP = 100;

/** `file:line: message` lines, by file then line, at most `cap` of them plus a count of the rest. */
export function formatProblems(problems: readonly ImportProblem[], cap = PROBLEM_CAP): string[] {
  const sorted = [...problems].sort(
    (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || (a.line ?? 0) - (b.line ?? 0),
  );
  const lines = sorted
    .slice(0, cap)
    .map((p) =>
      p.line === undefined ? `${p.file}: ${p.message}` : `${p.file}:${p.line}: ${p.message}`,
    );
  const more = sorted.length - cap;
  if (more > 0) lines.push(`… and ${more} more problem${more === 1 ? '' : 's'}`);
  return lines;
}

/** A value as it appears in a message: JSON, shortened so one bad cell cannot flood the output. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
