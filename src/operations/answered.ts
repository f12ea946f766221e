import type { Principal } from '../auth/principal.js';
import type { AnyOperation } from './operation.js';

/**
 * An answered request, as the transports hand it to the executor (DESIGN §4.17): who called
 * (absent for a 401), from where, which operation with what input, what it answered. The access
 * trail (src/audit/) keeps it as an event of ids; nothing here is kept as it is.
 */
export interface AnsweredRequest {
  /** The answer's `request_id` (a tool result's, over MCP). */
  requestId: string;
  /** When it was answered (ms since the epoch). */
  at: number;
  transport: 'rest' | 'mcp';
  /** The client's address (DESIGN §4.16), or null where there is none (stdio). */
  address: string | null;
  /** Over MCP the client's `clientInfo` where the request carries it, else the HTTP User-Agent. */
  userAgent: string | null;
  principal: Principal | null;
  operation: AnyOperation | null;
  /** What the executor saw of it (`Seen`): the input it accepted, the data it answered. */
  seen: Seen;
  /** The HTTP status (what HTTP would have answered, for a tool call). */
  status: number;
  /** The error's code for a non-200, or the refusal's code for a `status: refused` answer. */
  code: string | null;
}

/**
 * Filled by the executor as a request goes through it: `input` once it passed strictness (the
 * parameters as accepted, typed), `data` once the operation answered.
 */
export interface Seen {
  input?: unknown;
  data?: unknown;
}

/** Where answered requests go: the access trail, when it is on. */
export interface AnswerSink {
  answered(request: AnsweredRequest): void;
}

/** The refusal code of an answer that is one (`{status: 'refused', code}`), else null. */
export function refusalCodeOf(data: unknown): string | null {
  const { status, code } = (data ?? {}) as { status?: unknown; code?: unknown };
  return status === 'refused' && typeof code === 'string' ? code : null;
}
