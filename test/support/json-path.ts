/** Resolves the simple JSONPaths the service writes (`$.items[3].displayName`) against a value. */
export function resolvePath(root: unknown, path: string): unknown {
  if (!path.startsWith('$')) throw new Error(`not a JSONPath: ${path}`);
  const steps = path.slice(1).match(/\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\]/g) ?? [];
  if (steps.join('') !== path.slice(1)) throw new Error(`unsupported JSONPath: ${path}`);
  let node: unknown = root;
  for (const step of steps) {
    if (node === null || typeof node !== 'object') return undefined;
    node = step.startsWith('[')
      ? (node as unknown[])[Number(step.slice(1, -1))]
      : (node as Record<string, unknown>)[step.slice(1)];
  }
  return node;
}

/** Every provenance envelope in a value, with the path where it was found. */
export function findEnvelopes(
  value: unknown,
  path = '$',
): { path: string; envelope: Record<string, unknown> }[] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => findEnvelopes(v, `${path}[${i}]`));
  const record = value as Record<string, unknown>;
  if (record.kind === 'vms.provenance') return [{ path, envelope: record }];
  return Object.entries(record).flatMap(([k, v]) => findEnvelopes(v, `${path}.${k}`));
}
