/**
 * `--db` names no vms-read database, and the command may not create one: only `seed` and `demo`
 * do. A wrong path must not quietly become a new empty database that refuses every token.
 */
export class NoDatabaseError extends Error {}
