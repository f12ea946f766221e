/**
 * What every part of the configuration shares: the error that names a variable and its rule, and
 * how a number is read from the environment.
 */

/** The environment as read: variable names to values. */
export type Env = Record<string, string | undefined>;

/** A variable set to a value it may not take: names the variable and the rule. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly rule: string,
  ) {
    super(`${variable} ${rule}`);
  }
}

/** A whole number (as Number() reads it) of at least `min`; `fallback` when unset or empty. */
export function wholeNumber(
  env: Env,
  variable: string,
  fallback: number,
  min: number,
  rule: string,
): number {
  const value = env[variable];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(variable, rule);
  return n;
}
