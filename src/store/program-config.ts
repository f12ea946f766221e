/**
 * A workspace's program configuration, stored as JSON in `program_configs.config`, one row per
 * version. Invoices and timesheets record the version they were generated or created under.
 */
export type PayBand = 'regular' | 'overtime' | 'doubletime' | 'flat';

export interface PayCode {
  code: string;
  name: string;
  band: PayBand;
  /** Basis points: 10000 = 1x, 15000 = 1.5x. */
  multiplierBp: number;
}

export interface NamedKey {
  key: string;
  name: string;
}

export interface ProgramConfig {
  payCodes: PayCode[];
  orgUnits: NamedKey[];
  sites: NamedKey[];
  jobCodes: NamedKey[];
  expenseCategories: string[];
  /** Metric keys enabled for reports; null means the whole catalog of the workspace's source. */
  enabledMetrics: string[] | null;
}
