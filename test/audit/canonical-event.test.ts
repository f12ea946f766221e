/**
 * The trail's canonical JSON (src/audit/event.ts) is RFC 8785's: for any JSON value, the same bytes
 * as the `canonicalize` library, which it stands in for on the request path (DESIGN §4.17: the
 * bytes an event's hash covers). Random JSON (unicode strings, index-like keys, nesting, numbers
 * of every kind) and events as the trail makes them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { canonicalEvent, canonicalEventWith, type AuditEvent } from '../../src/audit/event.js';

const asEvent = (value: unknown) => value as AuditEvent;

describe('the canonical JSON of an event', () => {
  it('is canonicalize’s, for any JSON value', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        (value) => canonicalEvent(asEvent(value)) === canonicalize(value),
      ),
      { numRuns: 2000 },
    );
  });

  it('is canonicalize’s for keys of every kind: unicode, index-like, empty, surrogates', () => {
    const key = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 6 }),
      fc.string({ unit: 'binary', maxLength: 4 }),
      fc.nat({ max: 20 }).map(String),
      fc.constantFrom('', '\u{1F600}', '\uFFFF', 'é', 'e\u0301', '__proto__', 'toString'),
    );
    // Finite numbers: events are made of JSON, which has no others.
    const number = fc.double({ noNaN: true, noDefaultInfinity: true });
    const member = fc.oneof(fc.string({ unit: 'binary' }), number, fc.integer(), fc.boolean());
    fc.assert(
      fc.property(fc.dictionary(key, fc.dictionary(key, member)), (value) => {
        assert.equal(canonicalEvent(asEvent(value)), canonicalize(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('is the same made around its revealed records’ own canonical JSON', () => {
    const record = fc.record(
      {
        type: fc.constantFrom('worker', 'timesheet', 'invoice', 'approval_status'),
        id: fc.string(),
        worker: fc.string(),
        personalData: fc.constant(true as const),
      },
      { requiredKeys: ['type', 'id'] },
    );
    const event = fc.record(
      {
        at: fc.nat(),
        requestId: fc.string(),
        workspace: fc.option(fc.string()),
        caller: fc.option(fc.record({ kind: fc.constant('access_key'), keyId: fc.string() })),
        role: fc.option(fc.string()),
        address: fc.option(fc.string()),
        params: fc.option(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }))),
        status: fc.integer(),
        code: fc.option(fc.string()),
        revealed: fc.array(record, { maxLength: 8 }),
        report: fc.record({ query: fc.jsonValue({ maxDepth: 2 }), rows: fc.nat() }),
        userAgent: fc.option(fc.string()),
        transport: fc.constantFrom('rest', 'mcp'),
        // Members an event does not have: written the general way, in their place.
        extra: fc.jsonValue({ maxDepth: 1 }),
        aardvark: fc.string(),
      },
      { requiredKeys: ['at', 'requestId', 'status', 'revealed'] },
    );
    fc.assert(
      fc.property(event, (value) => {
        const made = canonicalEventWith(asEvent(value), canonicalize(value.revealed) as string);
        assert.equal(made, canonicalize(value));
        assert.equal(made, canonicalEvent(asEvent(value)));
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves out undefined members, as JSON does', () => {
    const event = { b: 1, a: undefined, c: [1, { z: 2, y: undefined }] };
    assert.equal(canonicalEvent(asEvent(event)), '{"b":1,"c":[1,{"z":2}]}');
    assert.equal(canonicalEvent(asEvent(event)), canonicalize(event));
  });
});
