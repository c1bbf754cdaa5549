// Robustness: input nested far deeper than any real document, from every outside source (client
// lines, mode files, the config file, session files) gets a precise refusal and the server serves on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, startServer } from '../protocol/harness.js';
import { endAndDrain, persistenceConfig, scratchDir } from './drive.js';
import { pollUntil } from './observe.js';

const DEPTH = 100_000;
const deepArray = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObject = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

test('a client line nested 100,000 levels deep is answered -32600 with its id, and the server serves on', async (t) => {
  const s = startServer(t);
  await s.initialize();
  s.write(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_modes","arguments":{"x":${deepObject(DEPTH)}}}}\n`);
  const res = await s.response(7);
  assert.equal(res.error?.code, -32600);
  assert.equal(res.error?.message, 'Invalid Request: message nested too deep');
  assert.equal(res.error?.data, 'the message nests deeper than 1000 levels; nothing in it was read');
  // A notification or a response that deep gets no answer (and must not kill anything).
  s.write(`{"jsonrpc":"2.0","method":"notifications/progress","params":${deepArray(DEPTH).replace(/^\[/, '{"x":[').replace(/\]$/, ']}')}}\n`);
  s.write(`{"jsonrpc":"2.0","id":"srv-1","result":{"x":${deepArray(DEPTH)}}}\n`);
  // Nesting up to the bound is still read.
  const ok = await s.call(8, 'ping', { x: JSON.parse(deepArray(990)) });
  assert.deepEqual(ok.result, {});
  assert.equal((await s.tool(9, 'list_modes')).result?.isError, undefined);
  assert.equal((await endAndDrain(s)).code, 0);
  assert.equal(s.messages.filter((m) => 'error' in m || 'result' in m).length, 5, 'one answer per request (initialize, 7, 8, 9), none for the notification or response');
  s.assertStdoutPure();
});

test('a .roomodes nested 100,000 levels deep, as YAML or as JSON, gets a located error and the built-in modes still serve', async (t) => {
  for (const [kind, text] of [['YAML', `customModes: ${deepArray(DEPTH)}\n`], ['JSON', `{"customModes":${deepArray(DEPTH)}}`]] as const) {
    const dir = scratchDir(t);
    writeFileSync(join(dir, '.roomodes'), text);
    const check = spawnSync(process.execPath, [MAIN, 'validate', join(dir, '.roomodes')], { encoding: 'utf8', cwd: dir, timeout: 30_000 });
    assert.equal(check.status, 1, `${kind}: validate reports the problem: ${check.stderr}${check.stdout}`);
    assert.match(check.stdout + check.stderr, /\.roomodes:1:\d+: cannot parse the file: .*(nested|nests) deeper than 1000 levels$/m, kind);
    assert.doesNotMatch(check.stdout + check.stderr, /RangeError|call stack/i, kind);
    const s = startServer(t, { args: ['--project-root', dir], cwd: dir });
    await s.initialize();
    const list = await s.tool(1, 'list_modes');
    assert.match(list.result.content[0].text, /\(code\) — builtin/, kind);
    // stderr and stdout are separate pipes: the warning written before the answer may arrive after it.
    await pollUntil(() => /\.roomodes:1:\d+: cannot parse the file: .*deeper than 1000 levels$/m.test(s.stderr), `${kind}: the load warning names the place`, 5000);
    assert.equal((await endAndDrain(s)).code, 0, kind);
  }
});

test('a config file nested 100,000 levels deep stops the server with exit 2 and one line naming the file and the bound', (t) => {
  const dir = scratchDir(t);
  const config = join(dir, 'config.json');
  writeFileSync(config, `{"server":{"page_size":${deepArray(DEPTH)}}}`);
  const r = spawnSync(process.execPath, [MAIN, '--config', config], { encoding: 'utf8', input: '', timeout: 30_000 });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `roo-modes-server: config file ${config}: the document nests deeper than 1000 levels\n`);
});

test('a session file whose task metadata nests 100,000 levels deep is skipped with a warning, and the server serves on', async (t) => {
  const dir = scratchDir(t);
  const storage = join(dir, 'sessions');
  const config = persistenceConfig(dir, storage);
  const first = startServer(t, { args: ['--config', config, '--project-root', dir], cwd: dir });
  await first.initialize();
  const created = await first.tool(1, 'create_task', { mode_slug: 'code', initial_message: 'hello' });
  const sessionId = created.result.structuredContent.session_id as string;
  assert.equal((await endAndDrain(first)).code, 0);
  const file = join(storage, readdirSync(storage).find((n) => n.startsWith(sessionId))!);
  const record = JSON.parse(readFileSync(file, 'utf8')) as { task: Record<string, unknown> };
  record.task.metadata = { x: 'DEEP' };
  writeFileSync(file, JSON.stringify(record).replace('"DEEP"', deepObject(DEPTH)));

  const second = startServer(t, { args: ['--config', config, '--project-root', dir], cwd: dir });
  await second.initialize();
  const info = await second.tool(2, 'get_task_info', { session_id: sessionId });
  assert.equal(info.error?.code, -32002, `the deep session is not served: ${JSON.stringify(info).slice(0, 300)}`);
  assert.match(second.stderr, new RegExp(`session file ${sessionId}\\.json.*the file nests deeper than 1000 levels`));
  assert.equal((await second.tool(3, 'create_task', { mode_slug: 'ask' })).result?.isError, undefined);
  assert.equal((await endAndDrain(second)).code, 0);
  second.assertStdoutPure();
});
