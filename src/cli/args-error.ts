/**
 * A usage mistake (an unknown command or flag, a missing or bad value): printed as one line
 * followed by `usage`, the help of the command it was made in (the dispatcher fills it in), on
 * stderr with exit code 2.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    public usage?: string,
  ) {
    super(message);
  }
}
