/**
 * A real OData client (DESIGN §4.18): the SAP Cloud SDK's OData v4 generator (installed apart,
 * in tools/odata-clients; CI installs it) run on the $metadata the feed serves generates and
 * compiles a typed client without an error, and that client's queries (by key, top, skip as it
 * pages, filter, select) return what REST returns. Both stores.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DIALECTS, get, startHarness, type Harness } from '../support/harness.js';

const TOOLS = fileURLToPath(new URL('../../../tools/odata-clients/', import.meta.url));
const GENERATOR = join(TOOLS, 'node_modules/@sap-cloud-sdk/generator/dist/cli.js');
const ci = process.env.CI === 'true' || process.env.CI === '1';
const skip =
  !existsSync(GENERATOR) &&
  !ci &&
  'tools/odata-clients not installed: npm ci --prefix tools/odata-clients (CI installs it)';

/* eslint-disable @typescript-eslint/no-explicit-any -- the generated client is loaded at run time */

/** Generates the client from `metadata` into a scratch folder of the tools (where its runtime resolves). */
function generateClient(metadata: string): any {
  mkdirSync(join(TOOLS, '.scratch'), { recursive: true });
  const dir = mkdtempSync(join(TOOLS, '.scratch', 'client-'));
  mkdirSync(join(dir, 'in'));
  writeFileSync(join(dir, 'in', 'vms.edmx'), metadata);
  const options = join(dir, 'options.json');
  writeFileSync(
    options,
    JSON.stringify({
      'vms.edmx': { servicePath: '/odata/v4', packageName: 'vms', directoryName: 'vms' },
    }),
  );
  // Throws, with the generator's output, on any error: generation and compilation both.
  execFileSync(
    process.execPath,
    [
      GENERATOR,
      '-i',
      join(dir, 'in'),
      '-o',
      join(dir, 'out'),
      '-s',
      options,
      '--transpile',
      '--tsconfig',
      join(TOOLS, 'tsconfig.generated.json'),
    ],
    { cwd: TOOLS, stdio: 'pipe' },
  );
  const client = createRequire(join(dir, 'out', 'vms', 'index.js'))('./index.js');
  return { client, dir };
}

const plain = (value: unknown) =>
  value !== null && typeof value === 'object' && 'value' in value
    ? (value as { value: unknown }).value
    : value;

describe(
  'the SAP Cloud SDK generates a client from $metadata, whose queries answer as REST',
  { skip },
  () => {
    let generated: { client: any; dir: string };
    after(() => generated && rmSync(generated.dir, { recursive: true, force: true }));

    for (const dialect of DIALECTS)
      describe(dialect, () => {
        let h: Harness;
        let destination: { url: string };
        let vms: any;
        const auth = () => ({ authorization: `Bearer ${h.tokens.staff}` });
        before(async () => {
          h = await startHarness({ dialect });
          const url = await h.app.listen({ host: '127.0.0.1', port: 0 });
          // The service path is the destination's: the generated client's own base path is `/`.
          destination = { url: `${url}/odata/v4` };
          if (!generated) {
            const metadata = await get(h.app, '/odata/v4/$metadata', h.tokens.staff);
            generated = generateClient(metadata.raw);
          }
          vms = generated.client.vms();
        });
        after(() => h?.close());

        it('reads by key, with top, with skip and top as it pages, and with a filter and a select', async () => {
          const rest = (await get(h.app, '/api/v1/invoices?limit=50', h.tokens.staff)).body.data
            .items;
          const { invoicesApi } = vms;
          const one = await invoicesApi
            .requestBuilder()
            .getByKey(rest[3].id)
            .addCustomHeaders(auth())
            .execute(destination);
          assert.equal(one.id, rest[3].id);
          assert.equal(one.totalCents.toNumber(), rest[3].totalCents);
          assert.equal(one.number ?? null, plain(rest[3].number));
          const top = await invoicesApi
            .requestBuilder()
            .getAll()
            .top(5)
            .addCustomHeaders(auth())
            .execute(destination);
          assert.deepEqual(
            top.map((i: any) => i.id),
            rest.slice(0, 5).map((i: any) => i.id),
          );
          const page = await invoicesApi
            .requestBuilder()
            .getAll()
            .skip(10)
            .top(10)
            .addCustomHeaders(auth())
            .execute(destination);
          assert.deepEqual(
            page.map((i: any) => i.id),
            rest.slice(10, 20).map((i: any) => i.id),
          );
          const drafts = await invoicesApi
            .requestBuilder()
            .getAll()
            .filter(invoicesApi.schema.STATUS.equals('draft'))
            .select(invoicesApi.schema.ID, invoicesApi.schema.STATUS)
            .addCustomHeaders(auth())
            .execute(destination);
          const restDrafts = (
            await get(h.app, '/api/v1/invoices?status=draft&limit=50', h.tokens.staff)
          ).body.data.items;
          assert.deepEqual(
            drafts.map((i: any) => i.id),
            restDrafts.map((i: any) => i.id),
          );
          assert.ok(drafts.every((i: any) => i.status === 'draft' && i.totalCents === undefined));
          const workers = await vms.workersApi
            .requestBuilder()
            .getAll()
            .top(3)
            .addCustomHeaders(auth())
            .execute(destination);
          const restWorkers = (await get(h.app, '/api/v1/workers?limit=3', h.tokens.staff)).body
            .data.items;
          assert.deepEqual(
            workers.map((w: any) => [
              w.id,
              w.displayName,
              w.tenureStart?.format('YYYY-MM-DD') ?? null,
            ]),
            restWorkers.map((w: any) => [w.id, plain(w.displayName), w.tenureStart]),
          );
        });
      });
  },
);
