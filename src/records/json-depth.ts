/**
 * How deep a parsed JSON value nests, measured without recursion (so a value nested 100,000 deep,
 * which JSON.parse accepts, cannot overflow the stack here as it would JSON.stringify or a schema
 * check): true when it nests deeper than `limit` arrays and objects.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const member of Array.isArray(item) ? item : Object.values(item))
      if (member !== null && typeof member === 'object') stack.push([member, depth + 1]);
  }
  return false;
}

/** Arrays and objects within one another that any input may hold (a saved query needs 5). */
export const MAX_JSON_DEPTH = 32;
