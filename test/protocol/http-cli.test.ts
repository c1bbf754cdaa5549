// The `call --url` client over real HTTP: both eras against one running `serve --http`, a
// session_id created by one call used by the next (sessions are shared by the server), the token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './cli-run.js';
import { startHttp } from './http-harness.js';

test('call --url speaks both eras to one server, which keeps tasks across calls', async (t) => {
  const s = await startHttp(t);
  const legacy = await runCli(['call', '--url', s.url, 'create_task', '--arg', 'mode_slug=code', '--raw']);
  assert.equal(legacy.code, 0, legacy.stderr);
  const sessionId = (JSON.parse(legacy.stdout) as { metadata: { session_id: string } }).metadata.session_id;
  assert.match(sessionId, /^ses_/);
  const modern = await runCli(['call', '--url', s.url, '--protocol', '2026-07-28', 'get_task_info', '--arg', `session_id=${sessionId}`, '--raw']);
  assert.equal(modern.code, 0, modern.stderr);
  assert.equal((JSON.parse(modern.stdout) as { metadata: { session_id: string } }).metadata.session_id, sessionId);
  const missing = await runCli(['call', '--url', s.url, 'get_mode_info', '--arg', 'mode_slug=ghost']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /-32001/);
});

test('call --url sends ROO_MODES_HTTP_TOKEN as the bearer token', async (t) => {
  const token = 'cli-test-token-0123456789abcdef';
  const s = await startHttp(t, [], { ROO_MODES_HTTP_TOKEN: token });
  const refused = await runCli(['call', '--url', s.url, 'list_modes'], { env: { ROO_MODES_HTTP_TOKEN: undefined } });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /401/);
  // A wrong token is told as such (403), not as a missing one or an OAuth challenge.
  const wrong = await runCli(['call', '--url', s.url, 'list_modes'], { env: { ROO_MODES_HTTP_TOKEN: `${token}-not` } });
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /HTTP 403 .*wrong bearer token/);
  const ok = await runCli(['call', '--url', s.url, 'list_modes'], { env: { ROO_MODES_HTTP_TOKEN: token } });
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /Code \(code\)/);
});
