// Protocol tests of the HTTP door's guards over real sockets: Host and Origin (DNS rebinding), the
// bearer token, refusing a non-loopback bind without one, the body limit, and SIGTERM draining
// in-flight work and flushing persistence before exit 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './harness.js';
import { HttpServer, META_2026, startHttp } from './http-harness.js';

const PING = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

test('a foreign Origin or Host is refused with 403; loopback names and allowed origins pass', async (t) => {
  const dir = tempDir(t, 'rms-http-cfg-');
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ http: { allowed_origins: ['https://app.example.com'] } }));
  const s = await startHttp(t, ['--config', config]);
  const port = new URL(s.url).port;
  assert.equal((await s.post(PING, { origin: 'http://evil.example' })).status, 403);
  assert.equal((await s.post(PING, { host: `evil.example:${port}` })).status, 403, 'DNS rebinding: a foreign Host');
  assert.equal((await s.post(PING, { origin: 'https://app.example.com.evil.example' })).status, 403, 'a prefix is not the origin');
  for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`, 'https://app.example.com']) {
    assert.equal((await s.post(PING, { origin })).status, 200, origin);
  }
  assert.equal((await s.post(PING, { host: `localhost:${port}` })).status, 200);
  assert.equal((await s.post(PING, { host: 'app.example.com' })).status, 200, 'an allowed origin\'s host');
});

test('with a token every request needs it: 401 with a challenge when missing, 403 without one when wrong (no OAuth for a wrong token)', async (t) => {
  const token = 'a-long-enough-test-token-0123456789';
  const s = await startHttp(t, [], { ROO_MODES_HTTP_TOKEN: token });
  const none = await s.post(PING);
  assert.equal(none.status, 401);
  assert.equal(none.headers['www-authenticate'], 'Bearer');
  assert.match(none.body, /needs \\"Authorization: Bearer <token>\\"/);
  // A 401 challenge makes MCP clients start OAuth; a wrong static token is answered 403 and says so.
  const wrong = await s.post(PING, { authorization: 'Bearer wrong' });
  assert.equal(wrong.status, 403);
  assert.equal(wrong.headers['www-authenticate'], undefined);
  assert.match(wrong.body, /wrong bearer token/);
  assert.equal((await s.post(PING, { authorization: `Bearer ${token}x` })).status, 403, 'a longer token');
  assert.equal((await s.post(PING, { authorization: `Bearer ${token}` })).status, 200);
});

test('a non-loopback bind needs a token or --insecure-no-auth', async (t) => {
  const refused = new HttpServer(['--host', '0.0.0.0']);
  t.after(() => refused.kill());
  const { code } = await refused.exit;
  assert.equal(code, 2);
  assert.match(refused.stderr, /refusing to listen on 0\.0\.0\.0 without a token/);
  const waived = await startHttp(t, ['--host', '0.0.0.0', '--insecure-no-auth']);
  assert.match(waived.url, /^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
  const withToken = await startHttp(t, ['--host', '0.0.0.0'], { ROO_MODES_HTTP_TOKEN: 'another-long-test-token-abcdef' });
  assert.ok(withToken.url);
});

test('a body over server.max_message_bytes gets 413 and the server keeps serving', async (t) => {
  const dir = tempDir(t, 'rms-http-cfg-');
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ server: { max_message_bytes: 2048 } }));
  const s = await startHttp(t, ['--config', config]);
  const big = { ...PING, params: { ...PING.params, padding: 'x'.repeat(4096) } };
  const res = await s.post(big);
  assert.equal(res.status, 413);
  assert.match(res.messages[0]?.error?.message, /2048 bytes/);
  assert.equal((await s.post(PING)).status, 200);
});

test('SIGTERM ends listen streams gracefully, flushes sessions and exits 0', async (t) => {
  const store = tempDir(t, 'rms-http-store-');
  const s = await startHttp(t, ['--sessions-dir', store]);
  const created = await s.modern(1, 'tools/call', { name: 'create_task', arguments: { mode_slug: 'code' } });
  const sessionId = created.messages[0]?.result?.metadata?.session_id;
  assert.match(String(sessionId), /^ses_/, created.body);
  const listen = await s.stream('POST', { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' }, { jsonrpc: '2.0', id: 2, method: 'subscriptions/listen', params: { notifications: { promptsListChanged: true }, _meta: META_2026 } });
  await listen.next((m) => m.method === 'notifications/subscriptions/acknowledged', 'the acknowledgement');
  s.child.kill('SIGTERM');
  const final = await listen.next((m) => m.id === 2, 'the listen result at shutdown');
  assert.ok(final.result, JSON.stringify(final));
  const { code } = await s.exit;
  assert.equal(code, 0, s.stderr);

  const again = await startHttp(t, ['--sessions-dir', store]);
  const seen = await again.modern(3, 'tools/call', { name: 'get_task_info', arguments: { session_id: sessionId } });
  assert.equal(seen.messages[0]?.result?.metadata?.session_id, sessionId, seen.body);
});

test('a browser page on an accepted origin gets CORS answers; the preflight needs no token', async (t) => {
  const token = 'cors-test-token-0123456789';
  const s = await startHttp(t, [], { ROO_MODES_HTTP_TOKEN: token });
  const port = new URL(s.url).port;
  const origin = `http://localhost:${port}`;
  const preflight = await s.send('OPTIONS', undefined, { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, mcp-session-id' });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers['access-control-allow-origin'], origin);
  assert.match(String(preflight.headers['access-control-allow-headers']), /mcp-session-id/);
  const init = await s.post(PING, { origin, authorization: `Bearer ${token}` });
  assert.equal(init.status, 200);
  assert.equal(init.headers['access-control-allow-origin'], origin);
  assert.equal(init.headers['access-control-expose-headers'], 'mcp-session-id');
  const foreign = await s.send('OPTIONS', undefined, { origin: 'http://evil.example' });
  assert.equal(foreign.status, 403, 'a foreign origin gets no preflight either');
  assert.equal(foreign.headers['access-control-allow-origin'], undefined);
});
