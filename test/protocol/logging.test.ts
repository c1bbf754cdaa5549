// Logs: stderr or the log file, never stdout; a bad log file is exit 2 before serving; and after
// logging/setLevel the client receives the server's own records at or above the level.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir } from './harness.js';

test('writes its logs to --log-file and nothing but protocol to stdout', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'server.log');
  const s = startServer(t, { args: ['--log-file', file, '--log-level', 'debug'] });
  await s.initialize();
  await s.call(1, 'ping');
  assert.deepEqual(await s.end(), { code: 0, signal: null });
  assert.match(readFileSync(file, 'utf8'), /initialized with protocol-test/);
  assert.equal(s.stderr, '');
  s.assertStdoutPure();
});

test('refuses a log file it cannot open with one line on stderr and exit 2', async (t) => {
  // Its folder would have to be made inside a regular file: impossible whoever runs the test.
  const blocker = join(tempDir(t), 'a-file');
  writeFileSync(blocker, '');
  const s = startServer(t, { args: ['--log-file', join(blocker, 'x', 'server.log')] });
  const { code } = await s.exit;
  assert.equal(code, 2);
  assert.match(s.stderr, /cannot open the log file/);
  assert.equal(s.stderr.trim().split('\n').length, 1);
  assert.equal(s.lines.length, 0);
});

test('forwards its own log records at or above the level the client set', async (t) => {
  const root = tempDir(t);
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize();
  const bad = await s.call(1, 'logging/setLevel', { level: 'loud' });
  assert.equal(bad.error.code, -32602);
  assert.deepEqual((await s.call(2, 'logging/setLevel', { level: 'debug' })).result, {});
  await s.call(3, 'resources/list'); // the mode catalogue (and its file watch) starts with first use
  // A mode file with a bad mode makes the registry log a warning on reload.
  writeFileSync(join(root, '.roomodes'), 'customModes:\n  - slug: "bad slug"\n    name: X\n    roleDefinition: Y\n    groups: [read]\n');
  const msg = await s.waitFor((m) => m.method === 'notifications/message' && /bad slug/.test(JSON.stringify(m.params)), 10000, 'a forwarded log record');
  const params = msg.params as { level: string; logger: unknown };
  assert.equal(params.level, 'warning');
  assert.equal(typeof params.logger, 'string');
  s.assertStdoutPure();
});
