/**
 * A request the admin layer refuses as asked (an unknown workspace, a metric the catalog source
 * lacks, a token that does not exist): the caller's mistake, not a fault. The CLI prints its one
 * line, without the usage (the command line was right), with exit 2; an admin endpoint would
 * answer it as a client error.
 */
export class AdminError extends Error {}
