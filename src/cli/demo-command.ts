import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { DEMO_SEED, DEMO_WORKSPACE, demoTokens, type DemoTokens } from '../admin/demo.js';
import { seedStore } from '../admin/seed.js';
import type { Config } from '../config.js';
import type { DemoSignIn } from '../oauth-server/interactions.js';
import { openStore } from '../store/open-store.js';
import { todayUtc } from './args.js';
import { defineCommand } from './command.js';
import { writeFactsAfterLoad } from './facts-command.js';
import { ADDRESS_FLAGS, checkPortFree, hostAndPort, listen } from './serve-command.js';
import { SUMMARIES } from './summaries.js';

const DEMO_DB = 'data/demo.db';
const DEMO_TOKENS = 'data/demo-tokens.json';

/** The demo accounts the built-in server's sign-in page offers: one click each, no key to paste. */
function demoSignIns(tokens: DemoTokens): DemoSignIn[] {
  const labels: Record<string, string> = {
    staff: 'Staff, every scope',
    worker: 'A worker',
    billingEntity: 'A billing entity',
  };
  return Object.entries(labels)
    .filter(([name]) => tokens[name] !== undefined)
    .map(([name, label]) => ({ name, label, token: tokens[name] }));
}

/** `npm start`: a seeded embedded database, demo tokens, and a running server. */
export const demoCommand = defineCommand({
  name: 'demo',
  synopsis: '[--host 127.0.0.1] [--port 8080]',
  summary: SUMMARIES['demo'],
  description:
    `What npm start runs: creates ${DEMO_DB} (scale small) if missing, mints demo tokens into\n` +
    `${DEMO_TOKENS}, serves, and prints the base URL, the tokens and a first curl command.`,
  flags: ADDRESS_FLAGS,
  run: ({ values }, config) => demo(hostAndPort(values, config), config),
});

async function demo(address: { host: string; port: number }, config: Config): Promise<void> {
  // A port in use is told before seeding, which takes seconds on the first run.
  await checkPortFree(address);
  const fresh = !existsSync(DEMO_DB);
  const store = await openStore(DEMO_DB, { create: true });
  if (fresh || !(await store.hasData())) {
    console.error(`Creating ${DEMO_DB} (scale small); this takes a few seconds...`);
    await seedStore(store, { ...DEMO_SEED, asOf: todayUtc() });
    await writeFactsAfterLoad(store, DEMO_DB, config);
  }
  const saved = existsSync(DEMO_TOKENS)
    ? (JSON.parse(readFileSync(DEMO_TOKENS, 'utf8')) as DemoTokens)
    : null;
  const { tokens, minted } = await demoTokens(store, saved, new Date());
  if (minted) writeFileSync(DEMO_TOKENS, `${JSON.stringify(tokens, null, 2)}\n`, { mode: 0o600 });
  // Its log is written as it is logged: the lines so far (the copy opened, reports warmed,
  // listening) are out before the banner, so that on a terminal none lands in its middle.
  const { baseUrl } = await listen(store, DEMO_DB, address, config, demoSignIns(tokens), {
    syncLog: true,
  });
  const lines = [
    '',
    `vms-read demo is serving ${DEMO_DB} at ${baseUrl}`,
    `  Web page       ${baseUrl}/app  (dashboards, the explorer and records; ${config.oauthServer ? 'Sign in with a demo account, or use a token below' : 'sign in with a token below'})`,
    `  API reference  ${baseUrl}/docs  (OpenAPI: ${baseUrl}/openapi.json)`,
    `  MCP            ${baseUrl}/mcp  (add it to an MCP host by this URL: it signs in here${config.oauthServer ? ', with a demo account' : ''})`,
    '',
    `Demo tokens (workspace ${DEMO_WORKSPACE}; also saved in ${DEMO_TOKENS}):`,
    ...Object.entries(tokens).map(([name, token]) => `  ${name.padEnd(16)} ${token}`),
    '',
    'Try:',
    `  curl -s -H "Authorization: Bearer ${tokens.staff}" "${baseUrl}/api/v1/workers?limit=2"`,
    '',
  ];
  console.error(lines.join('\n'));
}
