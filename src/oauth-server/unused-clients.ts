import { errors } from 'oidc-provider';
import type { OAuthRecord, OAuthRecords } from '../store/sql/oauth-records.js';

/**
 * How long an instance that found the ceiling reached refuses registrations without counting
 * again: a flood at the ceiling costs one count a second, not one a request. A client that
 * becomes used meanwhile frees its place for registrations at most this much later.
 */
export const FULL_FOR_MS = 1000;

/** The store's model of a registered client (oidc-provider's). */
const CLIENT = 'Client';

/**
 * The ceiling on clients registered and not yet used (DESIGN §4.16, VMS_READ_UNUSED_CLIENTS_MAX):
 * anyone may register, from as many addresses as they hold, and each client is kept until it is
 * used or VMS_READ_UNUSED_CLIENT_HOURS pass; past the ceiling a registration is 429 with
 * `Retry-After` to every address. An unused client is a `Client` record with an expiry (a used one
 * is kept for good: record-adapter.ts), so they are counted in the store, which every instance of
 * a deployment shares: the ceiling is the deployment's, not each instance's.
 */
export class UnusedClients {
  private fullUntil = 0;
  /** When, as last counted, the first unused client expires and frees its place. */
  private freedAt = 0;
  /** This instance's last insert of a client: the next waits for it (add). */
  private adding: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly records: OAuthRecords,
    readonly max: number,
    private readonly now: () => number,
  ) {}

  /**
   * Seconds until a registration may go on (the first unused client's expiry), at least 1; 0 while
   * fewer than `max` unused clients exist.
   */
  async waitFor(): Promise<number> {
    const now = this.now();
    if (now >= this.fullUntil) {
      const held = await this.records.countOAuthRecordsExpiring(CLIENT, now, this.max);
      if (held < this.max) return 0;
      this.fullUntil = now + FULL_FOR_MS;
      this.freedAt = (await this.records.firstOAuthRecordExpiry(CLIENT, now)) ?? now;
    }
    return Math.max(1, Math.ceil((this.freedAt - now) / 1000));
  }

  /**
   * Keeps a client just registered, unless the ceiling was reached meanwhile (registrations under
   * way at once, each counted before any was kept): then the registration is refused as it would
   * have been a moment later. The count and the insert are one statement, and this instance's
   * run one after another; on SQLite that statement holds the database's write lock, so
   * instances agree exactly. On PostgreSQL two instances' statements at the same instant may
   * each see the other's place free (READ COMMITTED): the ceiling may be passed by one client
   * per other instance, no more. (A lock across instances would close that, at the price of a
   * pooled connection held by every registration waiting for it: a flood would take them all.)
   */
  async add(record: Omit<OAuthRecord, 'consumedAt'>): Promise<void> {
    const added = this.adding.then(() =>
      this.records.addOAuthRecordWithin(record, this.now(), this.max),
    );
    this.adding = added.catch(() => false);
    if (await added) return;
    this.fullUntil = 0;
    const refusal = new errors.OIDCProviderError(429, 'temporarily_unavailable');
    refusal.error_description = tooManyUnused(Math.max(1, await this.waitFor()));
    throw refusal;
  }
}

/** What a registration refused at the ceiling is told (`error_description`). */
export const tooManyUnused = (wait: number) =>
  `Too many clients are registered and not yet used; retry in ${wait} s.`;
