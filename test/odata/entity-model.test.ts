/**
 * One definition (DESIGN §4.18): the feed's entity types are the record definitions' fields, an
 * amount beside each cents field of a record with a currency, nothing listed twice: a field added
 * to a record is a property of its type in `$metadata` with no other change.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { csdlXml } from '../../src/odata/csdl-xml.js';
import { ENTITY_SETS, propertiesOf } from '../../src/odata/entity-model.js';
import { defineRecord } from '../../src/records/record.js';
import { InvoiceRecord } from '../../src/records/resources.js';

const { xml2json } = createRequire(import.meta.url)('odata-csdl');

describe('the entity model is the record definitions', () => {
  it('gives each set its record’s fields, in order, and an amount after each cents field', () => {
    for (const set of ENTITY_SETS) {
      const expected = Object.entries(set.record.fields).flatMap(([name, field]) =>
        field.kind === 'int' && name.endsWith('Cents') && 'currency' in set.record.fields
          ? [name, name.slice(0, -'Cents'.length)]
          : [name],
      );
      assert.deepEqual(
        set.properties.map((p) => p.name),
        expected,
        set.name,
      );
    }
  });

  it('puts a field added to a record in $metadata, typed, with nothing else to change', () => {
    const record = defineRecord({
      ...InvoiceRecord.fields,
      dueOn: { kind: 'string', column: 'due_on', format: 'date', nullable: true },
      feeCents: { kind: 'int', column: 'fee_cents' },
      memo: { kind: 'text', column: 'memo' },
    });
    const properties = propertiesOf(record);
    const json = xml2json(
      csdlXml(
        [{ name: 'Invoices', typeName: 'Invoice', key: ['id'], properties, navigation: [] }],
        new Set(),
      ),
      { annotations: true },
    );
    const type = json.VmsRead.Invoice;
    assert.deepEqual(type.dueOn, { $Type: 'Edm.Date', $Nullable: true });
    assert.deepEqual(type.feeCents, { $Type: 'Edm.Int64' });
    // Scale="variable" in the XML; CSDL JSON leaves a variable scale unsaid.
    assert.deepEqual(type.fee, { $Type: 'Edm.Decimal' });
    assert.deepEqual(type.memo, { '@VmsRead.Provenance': true });
  });
});
