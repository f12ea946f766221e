import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider';
import type { OAuthRecords } from '../store/sql/oauth-records.js';
import type { UnusedClients } from './unused-clients.js';

/**
 * A record of our own beside oidc-provider's models: a client that has had a grant (its id; no
 * payload). A client without one is "fresh": its failing authorization requests get an error page,
 * not a redirect (guards.ts), and a registered one is removed once it stays unused (below).
 */
export const USED_CLIENT = 'UsedClient';

/**
 * oidc-provider's storage adapter over the store's `oauth_records` (both databases), so sessions,
 * grants, codes, refresh tokens and registered clients survive a restart and are shared by every
 * instance of a deployment. Each model gets an adapter of its own (oidc-provider makes one per
 * model name); what it stores is the payload oidc-provider gives, unchanged.
 *
 * A registered client lives `unusedClientMs` (VMS_READ_UNUSED_CLIENT_HOURS) until its first grant,
 * then as long as the store keeps it (DESIGN §4.16): anyone may register, so a client nobody
 * signed in to can no longer start an authorization after that time, and is swept away. A new
 * one is kept only within the ceiling on unused clients (`unused`, VMS_READ_UNUSED_CLIENTS_MAX).
 */
export function recordAdapter(
  records: OAuthRecords,
  now: () => number,
  unusedClientMs: number,
  unused: UnusedClients,
  /** Told after records were removed (a token revoked, a grant ended): OwnTokens.ended. */
  onEnded: () => void = () => {},
): AdapterConstructor {
  return class RecordAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const record = {
        model: this.model,
        id,
        payload: payload as Record<string, unknown>,
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        expiresAt: expiresIn ? now() + expiresIn * 1000 : null,
      };
      if (this.model === 'Client' && !(await records.findOAuthRecord(USED_CLIENT, id, now())))
        // A registration (nothing here saves a client again): kept only within the ceiling.
        await unused.add({ ...record, expiresAt: now() + unusedClientMs });
      else await records.saveOAuthRecord(record);
      if (this.model === 'Grant' && typeof payload.clientId === 'string')
        await markUsed(records, payload.clientId);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await records.findOAuthRecord(this.model, id, now()));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await records.findOAuthRecordByUid(this.model, uid, now()));
    }

    /** Device codes only, a flow this server does not offer. */
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await records.consumeOAuthRecord(this.model, id, now());
    }

    async destroy(id: string): Promise<void> {
      await records.destroyOAuthRecord(this.model, id);
      onEnded();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await records.revokeOAuthGrant(grantId);
      onEnded();
    }
  };
}

/** A client has had a grant: it stays registered (its expiry cleared) and is no longer fresh. */
async function markUsed(records: OAuthRecords, clientId: string): Promise<void> {
  await records.saveOAuthRecord({
    model: USED_CLIENT,
    id: clientId,
    payload: {},
    grantId: null,
    uid: null,
    expiresAt: null,
  });
  await records.keepOAuthRecord('Client', clientId);
}

/** The payload as oidc-provider expects it back: `consumed` set once the record was consumed. */
function payloadOf(
  record: Awaited<ReturnType<OAuthRecords['findOAuthRecord']>>,
): AdapterPayload | undefined {
  if (!record) return undefined;
  const payload = record.payload as AdapterPayload;
  return record.consumedAt === null
    ? payload
    : { ...payload, consumed: Math.floor(record.consumedAt / 1000) };
}
