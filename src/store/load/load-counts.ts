/** What a load did with the rows of one table. */
export interface LoadCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  skipped: number;
  /** Records taken out by deletions (DESIGN §4.13); entries and lines with their timesheet or invoice. */
  deleted: number;
}
