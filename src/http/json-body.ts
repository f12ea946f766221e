import { errorCodes, type FastifyInstance } from 'fastify';
import { parse as secureJsonParse } from 'secure-json-parse';

/**
 * A body that is valid JSON but has a `__proto__` or `constructor.prototype` member: refused like
 * Fastify's default parser refuses it, but told apart from text that is not JSON, so that /mcp
 * answers it as an invalid request (-32600) rather than a parse error (-32700).
 */
export class ForbiddenMemberError extends Error {
  readonly code = 'VMS_ERR_FORBIDDEN_JSON_MEMBER';
  readonly statusCode = 400;
  /** True when the body is a JSON array (a JSON-RPC batch on /mcp). */
  readonly isArray: boolean;
  constructor(isArray: boolean) {
    super('the body has a forbidden prototype member');
    this.isArray = isArray;
  }
}

/** True when JSON.parse accepts the text. */
export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The JSON body parser of every route: Fastify's rules (secure-json-parse, empty body refused). */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text === '') return done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
    try {
      done(null, secureJsonParse(text, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(
        isJson(text)
          ? new ForbiddenMemberError(text.trimStart().startsWith('['))
          : new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(),
        undefined,
      );
    }
  });
}
