import type { AuditEvent } from './event.js';

/** The OCSF schema version the events follow. */
const OCSF_VERSION = '1.3.0';
/** OCSF API Activity: category Application Activity (6), class 6003, activity Read (2). */
const API_ACTIVITY = { category_uid: 6, class_uid: 6003, activity_id: 2 } as const;

/**
 * An event as OCSF API Activity (class_uid 6003, activity_id 2 Read), for a SIEM (DESIGN §4.17):
 * the caller as the actor (an access key's id, or the OAuth subject with its issuer and client),
 * the operation as the API's, the address and user agent, the records revealed as resources, and
 * what OCSF has no place for (personal data marks, a report's query) under `unmapped`.
 */
export function toOcsf(
  event: AuditEvent & { chain?: string; seq?: number; prev?: string; hash?: string },
): Record<string, unknown> {
  const caller = event.caller;
  const user = caller
    ? caller.kind === 'access_key'
      ? { uid: caller.keyId, type: 'access_key' }
      : { uid: caller.subject, type: 'oauth', org: { uid: caller.issuer } }
    : undefined;
  return {
    ...API_ACTIVITY,
    type_uid: API_ACTIVITY.class_uid * 100 + API_ACTIVITY.activity_id,
    activity_name: 'Read',
    time: event.at,
    // A counted refusal stands for `count` of them in its minute (OCSF's own member for that).
    ...(event.count === undefined ? {} : { count: event.count }),
    severity_id: 1,
    status_id: event.status < 400 && event.code === null ? 1 : 2,
    status: event.status < 400 && event.code === null ? 'Success' : 'Failure',
    status_code: event.code ?? String(event.status),
    metadata: {
      version: OCSF_VERSION,
      uid: event.requestId,
      product: { name: 'vms-read', vendor_name: 'vms-read' },
      tenant_uid: event.workspace ?? undefined,
    },
    actor: {
      user,
      app_uid: caller?.kind === 'oauth' ? (caller.clientId ?? undefined) : undefined,
      app_name: caller?.kind === 'oauth' ? caller.clientName : undefined,
    },
    api: {
      operation: event.operation ?? 'none',
      request: { uid: event.requestId },
      response: { code: event.status },
      service: { name: event.transport === 'mcp' ? 'vms-read MCP' : 'vms-read API' },
    },
    src_endpoint: { ip: event.address ?? undefined },
    http_request: event.userAgent ? { user_agent: event.userAgent } : undefined,
    resources: event.revealed.map((record) => ({ uid: record.id, type: record.type })),
    unmapped: {
      role: event.role,
      worker: event.worker,
      supplier: event.supplier,
      params: event.params,
      personal_data: event.revealed.some((record) => record.personalData === true),
      revealed: event.revealed,
      report: event.report,
      counted_by: event.countedBy,
      chain: event.chain,
      seq: event.seq,
      prev: event.prev,
      hash: event.hash,
    },
  };
}
