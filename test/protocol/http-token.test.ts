// The bearer token's length rule holds for every layer that can give it (the config file, the
// environment), with one wording: a short token stops the start with exit 2, before listening.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, tempDir } from './harness.js';

const RULE = /must be a token of at least 16 characters \(got (\d+) characters\)/;

function serve(args: string[], env: Record<string, string>): { status: number | null; stderr: string } {
  // Ends on its own when refused; a server that starts instead is cut off by the timeout (status null).
  const r = spawnSync(process.execPath, [MAIN, 'serve', '--http', '--host', '0.0.0.0', '--port', '0', ...args], {
    env: { ...process.env, ...env }, encoding: 'utf8', timeout: 10_000, input: '',
  });
  return { status: r.status, stderr: r.stderr };
}

test('a one-character ROO_MODES_HTTP_TOKEN is refused at start, as the docs say', () => {
  const r = serve([], { ROO_MODES_HTTP_TOKEN: 'a' });
  assert.equal(r.status, 2, `exit 2; stderr: ${r.stderr}`);
  assert.match(r.stderr, /ROO_MODES_HTTP_TOKEN/);
  assert.equal(RULE.exec(r.stderr)?.[1], '1', r.stderr);
  assert.doesNotMatch(r.stderr, /listening on/);
});

test('a short http.token in the config file is refused by the same rule and words', (t) => {
  const dir = tempDir(t);
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ http: { token: 'fifteen-chars-x' } }));
  const r = serve(['--config', config], { ROO_MODES_HTTP_TOKEN: '' });
  assert.equal(r.status, 2, `exit 2; stderr: ${r.stderr}`);
  assert.ok(r.stderr.includes(config), r.stderr);
  assert.equal(RULE.exec(r.stderr)?.[1], '15', r.stderr);
});
