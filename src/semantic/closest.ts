function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

const tokens = (key: string) =>
  new Set(
    key
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean),
  );

/**
 * Enabled metric keys nearest an unknown one (DESIGN §4.8): those sharing the most
 * `_`-separated tokens first, then by edit distance, then by key; at most five. Never empty while
 * there is a candidate: an agent told "no such metric" needs somewhere to go, even when nothing
 * looks alike.
 */
export function closestMetrics(wanted: string, candidates: Iterable<string>, max = 5): string[] {
  const want = wanted.toLowerCase();
  const wantTokens = tokens(want);
  const scored = [...candidates].map((key) => ({
    key,
    shared: [...tokens(key)].filter((t) => wantTokens.has(t)).length,
    distance: editDistance(want, key),
  }));
  scored.sort((a, b) => b.shared - a.shared || a.distance - b.distance || (a.key < b.key ? -1 : 1));
  return scored.slice(0, max).map((s) => s.key);
}
