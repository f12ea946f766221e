import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, readConfig } from '../../src/config.js';
import { runCli } from '../support/cli.js';

describe('readConfig: the environment, read once and checked', () => {
  it('gives the defaults for an empty environment', () => {
    assert.deepEqual(readConfig({}), {
      db: undefined,
      token: undefined,
      secret: undefined,
      quotaPerMinute: 6000,
      redisUrl: undefined,
      reportTimeoutMs: 10_000,
      drainMs: 8000,
      sendTimeoutMs: 30_000,
      unsentMb: 64,
      clientUnsentMb: 16,
      clientPending: 256,
      clientPipelined: 16,
      tombstoneDays: 30,
      webhookAllowInsecure: false,
      authFailuresPerMinute: 20,
      webhookRetryMs: 5000,
      webhookLeaseMs: 30000,
      origins: { publicUrl: undefined, allowedOrigins: [] },
      pgPoolSize: 10,
      reportEngine: 'columnar',
      factsDir: undefined,
      factsMemory: undefined,
      rollups: true,
      cache: true,
      logLevel: 'info',
      host: undefined,
      port: undefined,
      metrics: false,
      oauthIssuers: [],
      oauthServer: true,
      webSignIn: undefined,
      registrationsPerHour: 20,
      anonymousPerMinute: 600,
      authorizationsPerHour: 300,
      trustedProxies: [],
      unusedClientHours: 24,
      unusedClientsMax: 10_000,
      preferredIssuer: undefined,
      audit: true,
      auditDays: 400,
      auditRefusalsPerMinute: 600,
    });
  });

  it('reads every variable', () => {
    const config = readConfig({
      VMS_READ_DB: 'x.db',
      VMS_READ_TOKEN: 'vmsr_t',
      VMS_READ_SECRET: 'a-cursor-key-of-thirty-two-chars',
      VMS_READ_QUOTA_PER_MINUTE: '0',
      REDIS_URL: 'rediss://vms:secret@cache.example.com:6380/2',
      VMS_READ_REPORT_TIMEOUT_MS: '250',
      VMS_READ_DRAIN_MS: '0',
      VMS_READ_SEND_TIMEOUT_MS: '5000',
      VMS_READ_UNSENT_MB: '8',
      VMS_READ_CLIENT_UNSENT_MB: '2',
      VMS_READ_CLIENT_PENDING: '10',
      VMS_READ_CLIENT_PIPELINED: '0',
      VMS_READ_TOMBSTONE_DAYS: '0',
      VMS_READ_WEBHOOK_RETRY_MS: '50',
      VMS_READ_AUTH_FAILURES_PER_MINUTE: '0',
      VMS_READ_REGISTRATIONS_PER_HOUR: '5',
      VMS_READ_ANONYMOUS_PER_MINUTE: '0',
      VMS_READ_AUTHORIZATIONS_PER_HOUR: '7',
      VMS_READ_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8',
      VMS_READ_UNUSED_CLIENT_HOURS: '0.5',
      VMS_READ_UNUSED_CLIENTS_MAX: '500',
      VMS_READ_PREFERRED_ISSUER: 'http://127.0.0.1:8443/realms/vms',
      VMS_READ_AUDIT: 'off',
      VMS_READ_AUDIT_DAYS: '30',
      VMS_READ_AUDIT_REFUSALS_PER_MINUTE: '0',
      VMS_READ_WEBHOOK_LEASE_MS: '2000',
      VMS_READ_WEBHOOK_ALLOW_INSECURE: '1',
      VMS_READ_PUBLIC_URL: 'https://vms.example.com/base',
      VMS_READ_ALLOWED_ORIGINS: ' https://a.example , ,https://b.example',
      VMS_READ_PG_POOL_SIZE: '4',
      VMS_READ_REPORT_ENGINE: 'row',
      VMS_READ_FACTS_DIR: '/var/cache/vms-read',
      VMS_READ_FACTS_MEMORY: '1GB',
      VMS_READ_CACHE: 'off',
      VMS_READ_ROLLUPS: 'off',
      LOG_LEVEL: 'warn',
      HOST: '0.0.0.0',
      PORT: '9000',
      VMS_READ_METRICS: '1',
      VMS_READ_OAUTH_SERVER: 'off',
      VMS_READ_WEB_ISSUER: 'https://acme.okta.com/oauth2/default',
      VMS_READ_WEB_CLIENT_ID: '0oa-vms-web',
      VMS_READ_OAUTH_ISSUERS: JSON.stringify([
        { issuer: 'https://acme.okta.com/oauth2/default', workspace: 'ws_business' },
        {
          issuer: 'http://127.0.0.1:8443/realms/vms',
          role: 'billing_entity',
          claims: { supplier: 'supplier_id', scopes: 'roles' },
        },
      ]),
    });
    assert.deepEqual(config, {
      db: 'x.db',
      token: 'vmsr_t',
      secret: 'a-cursor-key-of-thirty-two-chars',
      quotaPerMinute: 0,
      redisUrl: 'rediss://vms:secret@cache.example.com:6380/2',
      reportTimeoutMs: 250,
      drainMs: 0,
      sendTimeoutMs: 5000,
      unsentMb: 8,
      clientUnsentMb: 2,
      clientPending: 10,
      clientPipelined: 0,
      tombstoneDays: 0,
      webhookAllowInsecure: true,
      authFailuresPerMinute: 0,
      webhookRetryMs: 50,
      webhookLeaseMs: 2000,
      origins: {
        publicUrl: 'https://vms.example.com/base',
        allowedOrigins: ['https://a.example', 'https://b.example'],
      },
      pgPoolSize: 4,
      reportEngine: 'row',
      factsDir: '/var/cache/vms-read',
      factsMemory: '1GB',
      rollups: false,
      cache: false,
      logLevel: 'warn',
      host: '0.0.0.0',
      port: '9000',
      metrics: true,
      oauthIssuers: [
        {
          issuer: 'https://acme.okta.com/oauth2/default',
          workspace: 'ws_business',
          claims: {
            workspace: 'vms_workspace',
            role: 'vms_role',
            worker: 'vms_worker',
            supplier: 'vms_supplier',
          },
        },
        {
          issuer: 'http://127.0.0.1:8443/realms/vms',
          role: 'billing_entity',
          claims: {
            workspace: 'vms_workspace',
            role: 'vms_role',
            worker: 'vms_worker',
            supplier: 'supplier_id',
            scopes: 'roles',
          },
        },
      ],
      oauthServer: false,
      webSignIn: { issuer: 'https://acme.okta.com/oauth2/default', clientId: '0oa-vms-web' },
      registrationsPerHour: 5,
      anonymousPerMinute: 0,
      authorizationsPerHour: 7,
      trustedProxies: ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8'],
      unusedClientHours: 0.5,
      unusedClientsMax: 500,
      preferredIssuer: 'http://127.0.0.1:8443/realms/vms',
      audit: false,
      auditDays: 30,
      auditRefusalsPerMinute: 0,
    });
  });

  it('refuses trusted proxies that are not addresses or ranges, and unknown preferred issuers', () => {
    for (const [variable, value, rule] of [
      ['VMS_READ_TRUSTED_PROXIES', 'proxy.example', /must list addresses or CIDR ranges/],
      ['VMS_READ_TRUSTED_PROXIES', '10.0.0.0/33', /must list addresses or CIDR ranges/],
      ['VMS_READ_UNUSED_CLIENT_HOURS', '0', /must be a positive number of hours/],
      ['VMS_READ_UNUSED_CLIENT_HOURS', 'soon', /must be a positive number of hours/],
      ['VMS_READ_UNUSED_CLIENTS_MAX', '0', /must be a whole number of clients, at least 1/],
      ['VMS_READ_UNUSED_CLIENTS_MAX', '1e3.5', /must be a whole number of clients, at least 1/],
      ['VMS_READ_REGISTRATIONS_PER_HOUR', '-1', /must be a whole number of registrations/],
      ['VMS_READ_ANONYMOUS_PER_MINUTE', '1.5', /must be a whole number of requests/],
      ['VMS_READ_AUDIT_REFUSALS_PER_MINUTE', '-1', /must be a whole number of events/],
      ['VMS_READ_PREFERRED_ISSUER', 'https://elsewhere.example', /must be built-in or the issuer/],
    ] as const)
      assert.throws(
        () => readConfig({ [variable]: value }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.startsWith(variable) &&
          rule.test(error.message),
        `${variable}=${value}`,
      );
  });

  it('refuses a VMS_READ_TOMBSTONE_DAYS that is not a whole number of days', () => {
    for (const value of ['-1', '1.5', 'thirty'])
      assert.throws(
        () => readConfig({ VMS_READ_TOMBSTONE_DAYS: value }),
        (error: unknown) =>
          error instanceof ConfigError &&
          /VMS_READ_TOMBSTONE_DAYS must be a whole number/.test(error.message),
      );
  });

  it('refuses a webhook retry gap under 1 ms and a lease under 1000 ms', () => {
    for (const [variable, value, rule] of [
      ['VMS_READ_WEBHOOK_RETRY_MS', '0', /at least 1$/],
      ['VMS_READ_WEBHOOK_RETRY_MS', 'soon', /at least 1$/],
      ['VMS_READ_WEBHOOK_LEASE_MS', '999', /at least 1000$/],
      ['VMS_READ_WEBHOOK_LEASE_MS', '1e4.5', /at least 1000$/],
    ] as const)
      assert.throws(
        () => readConfig({ [variable]: value }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.startsWith(`${variable} must be a whole number of milliseconds`) &&
          rule.test(error.message),
      );
  });

  it('takes VMS_READ_WEB_ISSUER and VMS_READ_WEB_CLIENT_ID only together', () => {
    for (const [set, missing] of [
      ['VMS_READ_WEB_ISSUER', 'VMS_READ_WEB_CLIENT_ID'],
      ['VMS_READ_WEB_CLIENT_ID', 'VMS_READ_WEB_ISSUER'],
    ])
      assert.throws(
        () => readConfig({ [set]: set === 'VMS_READ_WEB_ISSUER' ? 'https://a.example' : 'c' }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message === `${missing} must be set together with ${set}`,
      );
  });

  it('reads VMS_READ_OAUTH_ISSUERS from a file named with @', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vms-issuers-'));
    try {
      const file = join(dir, 'issuers.json');
      writeFileSync(file, JSON.stringify([{ issuer: 'https://login.example.com', role: 'staff' }]));
      assert.deepEqual(
        readConfig({ VMS_READ_OAUTH_ISSUERS: `@${file}` }).oauthIssuers.map((i) => [
          i.issuer,
          i.role,
        ]),
        [['https://login.example.com', 'staff']],
      );
      assert.throws(
        () => readConfig({ VMS_READ_OAUTH_ISSUERS: `@${join(dir, 'missing.json')}` }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.startsWith('VMS_READ_OAUTH_ISSUERS names a file that cannot be read'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes an empty numeric variable, secret or public URL as unset', () => {
    const config = readConfig({
      VMS_READ_SECRET: '',
      VMS_READ_QUOTA_PER_MINUTE: '',
      VMS_READ_REPORT_TIMEOUT_MS: '',
      VMS_READ_PUBLIC_URL: '',
      VMS_READ_PG_POOL_SIZE: '',
      REDIS_URL: '',
    });
    assert.equal(config.secret, undefined);
    assert.equal(config.quotaPerMinute, 6000);
    assert.equal(config.reportTimeoutMs, 10_000);
    assert.equal(config.origins.publicUrl, undefined);
    assert.equal(config.pgPoolSize, 10);
    assert.equal(config.redisUrl, undefined);
  });

  it('takes REDIS_URL as redis:// or rediss://', () => {
    assert.equal(
      readConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl,
      'redis://127.0.0.1:6379',
    );
    assert.equal(readConfig({ REDIS_URL: 'rediss://cache:6380' }).redisUrl, 'rediss://cache:6380');
  });

  it('takes VMS_READ_METRICS empty or 0 as off', () => {
    assert.equal(readConfig({ VMS_READ_METRICS: '' }).metrics, false);
    assert.equal(readConfig({ VMS_READ_METRICS: '0' }).metrics, false);
  });

  it('reads each allowed origin as a browser sends it in Origin', () => {
    const config = readConfig({
      VMS_READ_ALLOWED_ORIGINS:
        'HTTPS://App.Example.com:443/, http://127.0.0.1:5173, chrome-extension://abcdef/',
    });
    assert.deepEqual(config.origins.allowedOrigins, [
      'https://app.example.com',
      'http://127.0.0.1:5173',
      'chrome-extension://abcdef',
    ]);
  });

  const ORIGINS_RULE =
    'VMS_READ_ALLOWED_ORIGINS must list origins such as https://app.example.com, comma-separated (no path, * or null)';
  const BAD: [variable: string, value: string, message: string][] = [
    [
      'VMS_READ_SECRET',
      'x',
      'VMS_READ_SECRET must be at least 32 characters (e.g. the output of openssl rand -base64 32), or unset',
    ],
    [
      'VMS_READ_SECRET',
      'a-cursor-key-of-31-characters-x',
      'VMS_READ_SECRET must be at least 32 characters (e.g. the output of openssl rand -base64 32), or unset',
    ],
    [
      'VMS_READ_QUOTA_PER_MINUTE',
      '-1',
      'VMS_READ_QUOTA_PER_MINUTE must be a whole number (0 turns the quota off)',
    ],
    [
      'VMS_READ_QUOTA_PER_MINUTE',
      'lots',
      'VMS_READ_QUOTA_PER_MINUTE must be a whole number (0 turns the quota off)',
    ],
    ['VMS_READ_DRAIN_MS', '-1', 'VMS_READ_DRAIN_MS must be a whole number of milliseconds'],
    [
      'VMS_READ_REPORT_TIMEOUT_MS',
      '0',
      'VMS_READ_REPORT_TIMEOUT_MS must be a whole number of milliseconds',
    ],
    [
      'VMS_READ_REPORT_TIMEOUT_MS',
      '1.5',
      'VMS_READ_REPORT_TIMEOUT_MS must be a whole number of milliseconds',
    ],
    [
      'VMS_READ_PUBLIC_URL',
      'vms.example.com',
      'VMS_READ_PUBLIC_URL must be an absolute URL, e.g. https://vms.example.com',
    ],
    [
      'VMS_READ_PG_POOL_SIZE',
      '0',
      'VMS_READ_PG_POOL_SIZE must be a whole number of connections, at least 1',
    ],
    [
      'VMS_READ_PG_POOL_SIZE',
      'ten',
      'VMS_READ_PG_POOL_SIZE must be a whole number of connections, at least 1',
    ],
    ...['http://localhost:6379', 'localhost:6379', 'redis', 'cache.example.com'].map(
      (value): [string, string, string] => [
        'REDIS_URL',
        value,
        'REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://localhost:6379',
      ],
    ),
    ['VMS_READ_ALLOWED_ORIGINS', '*', ORIGINS_RULE],
    ['VMS_READ_ALLOWED_ORIGINS', 'null', ORIGINS_RULE],
    ['VMS_READ_ALLOWED_ORIGINS', 'https://app.example.com/path', ORIGINS_RULE],
    ['VMS_READ_ALLOWED_ORIGINS', 'app.example.com', ORIGINS_RULE],
    ['VMS_READ_ALLOWED_ORIGINS', 'https://a.example,https://*.example.com', ORIGINS_RULE],
    ['VMS_READ_ALLOWED_ORIGINS', 'https://user@app.example.com', ORIGINS_RULE],
    ['VMS_READ_ALLOWED_ORIGINS', 'https://app.example.com?x=1', ORIGINS_RULE],
    ['VMS_READ_REPORT_ENGINE', 'duck', 'VMS_READ_REPORT_ENGINE must be one of columnar, row'],
    ['VMS_READ_CACHE', 'no', 'VMS_READ_CACHE must be one of on, off'],
    ['VMS_READ_ROLLUPS', 'false', 'VMS_READ_ROLLUPS must be one of on, off'],
    ['VMS_READ_FACTS_MEMORY', 'lots', 'VMS_READ_FACTS_MEMORY must be a size such as 256MB or 1GB'],
    ['VMS_READ_FACTS_MEMORY', '1 GB', 'VMS_READ_FACTS_MEMORY must be a size such as 256MB or 1GB'],
    ['VMS_READ_METRICS', 'true', 'VMS_READ_METRICS must be 1 (on) or 0 (off)'],
    ['VMS_READ_METRICS', 'on', 'VMS_READ_METRICS must be 1 (on) or 0 (off)'],
    ['VMS_READ_OAUTH_SERVER', 'yes', 'VMS_READ_OAUTH_SERVER must be one of on, off'],
    [
      'VMS_READ_WEB_ISSUER',
      'http://idp.example.com',
      'VMS_READ_WEB_ISSUER must be an https URL (http only on a loopback address), the issuer as its tokens name it',
    ],
    ...(
      [
        [
          '{"issuer":"https://a.example"}',
          'must be a JSON array of issuers, or @path to a file holding one',
        ],
        ['not json', 'must be a JSON array of issuers, or @path to a file holding one'],
        ['[1]', 'entry 1 must be an object'],
        [
          '[{"issuer":"http://idp.example.com"}]',
          'entry 1: issuer must be https (http only on a loopback address)',
        ],
        ['[{"issuer":"idp.example.com"}]', 'entry 1: issuer must be an absolute URL'],
        [
          '[{"issuer":"https://a.example?x=1"}]',
          'entry 1: issuer must have no query, fragment or credentials',
        ],
        [
          '[{"issuer":"https://a.example","role":"admin"}]',
          'entry 1: role must be one of staff, worker, billing_entity',
        ],
        [
          '[{"issuer":"https://a.example","workspace":""}]',
          'entry 1: workspace must be a workspace id',
        ],
        [
          '[{"issuer":"https://a.example","audience":"x"}]',
          'entry 1: takes only issuer, workspace, role and claims',
        ],
        [
          '[{"issuer":"https://a.example","claims":{"tenant":"t"}}]',
          'entry 1: claims takes only workspace, role, worker, supplier and scopes',
        ],
        [
          '[{"issuer":"https://a.example","claims":{"role":3}}]',
          "entry 1: claims.role must be a claim's name",
        ],
        [
          '[{"issuer":"https://a.example"},{"issuer":"https://a.example"}]',
          'entry 2: issuer https://a.example is listed twice',
        ],
      ] as const
    ).map(([value, rule]): [string, string, string] => [
      'VMS_READ_OAUTH_ISSUERS',
      value,
      `VMS_READ_OAUTH_ISSUERS ${rule}`,
    ]),
  ];
  for (const [variable, value, message] of BAD) {
    it(`refuses ${variable}=${value} with a ConfigError naming the variable and the rule`, () => {
      assert.throws(
        () => readConfig({ [variable]: value }),
        (error: unknown) =>
          error instanceof ConfigError && error.variable === variable && error.message === message,
      );
    });
  }

  it('stops the CLI at start with the message and exit 1', () => {
    const result = runCli(['workspace', 'list', '--db', 'nope.db'], {
      VMS_READ_QUOTA_PER_MINUTE: 'lots',
    });
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr,
      'vms-read: VMS_READ_QUOTA_PER_MINUTE must be a whole number (0 turns the quota off)\n',
    );
    assert.equal(result.stdout, '');
  });
});
