// http.allowed_origins given without a config file: the --allowed-origins flag and the
// ROO_MODES_HTTP_ALLOWED_ORIGINS variable reach the HTTP door's Origin and Host checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHttp } from './http-harness.js';
import { runCli } from './cli-run.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

test('--allowed-origins and ROO_MODES_HTTP_ALLOWED_ORIGINS let those origins (and their hosts) in, and no others', async (t) => {
  const routes: [string, string[], Record<string, string>][] = [
    ['the flag', ['--allowed-origins', 'https://app.example.com,https://two.example'], {}],
    ['the variable', [], { ROO_MODES_HTTP_ALLOWED_ORIGINS: 'https://app.example.com https://two.example' }],
  ];
  for (const [what, args, env] of routes) {
    const s = await startHttp(t, args, env);
    for (const origin of ['https://app.example.com', 'https://two.example']) {
      assert.equal((await s.post(INIT, { origin })).status, 200, `${what}: ${origin}`);
    }
    assert.equal((await s.post(INIT, { host: 'app.example.com' })).status, 200, `${what}: an allowed origin's host`);
    assert.equal((await s.post(INIT, { origin: 'https://evil.example' })).status, 403, `${what}: a foreign origin`);
  }
  // Without either, the same origin is refused: the flag and the variable are what let it in.
  const plain = await startHttp(t);
  assert.equal((await plain.post(INIT, { origin: 'https://app.example.com' })).status, 403);
});

test('an allowed origin that is not scheme://host[:port] stops serve --http with one line and exit 2', async () => {
  const flag = await runCli(['serve', '--http', '--port', '0', '--allowed-origins', 'app.example.com']);
  assert.equal(flag.code, 2);
  assert.equal(flag.stderr, 'roo-modes-server: --allowed-origins: "app.example.com" is not an origin (scheme://host[:port], e.g. https://app.example.com)\n');
  const env = await runCli(['serve', '--http', '--port', '0'], { env: { ROO_MODES_HTTP_ALLOWED_ORIGINS: 'https://a.example/path' } });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /^roo-modes-server: ROO_MODES_HTTP_ALLOWED_ORIGINS: "https:\/\/a\.example\/path" is not an origin/);
});
