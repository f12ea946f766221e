/** A report query ran past its time limit and was abandoned. */
export class ReportTimeoutError extends Error {
  constructor() {
    super('report query exceeded its time limit');
  }
}
