// add-to-mcp-config through the built CLI against what damaged configs: ten runs at once on one
// file, a file owned by someone else, a hard-linked file, a 200,000-deep file and a huge one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, linkSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN } from '../protocol/harness.js';
import { scratchDir } from './drive.js';

interface Run { code: number | null; out: string; err: string }

function run(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, 'add-to-mcp-config', '--client', 'cursor', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, out, err }); });
  });
}

test('ten runs at once on one config keep all ten entries and the entry that was there', async (t) => {
  const dir = scratchDir(t, 'rms-mcp-race-');
  const file = join(dir, 'mcp.json');
  writeFileSync(file, '{\n  "mcpServers": {\n    "other": { "command": "keep-me" }\n  }\n}\n');
  const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => run(['--file', file, '--name', `entry-${i}`])));
  for (const r of runs) assert.equal(r.code, 0, r.err);
  const servers = (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers;
  assert.deepEqual(Object.keys(servers).sort(), ['other', ...Array.from({ length: 10 }, (_, i) => `entry-${i}`)].sort());
});

test('the file keeps its owner, group and mode', { skip: process.getuid?.() === 0 ? false : 'changing a file\'s owner needs root' }, async (t) => {
  const dir = scratchDir(t, 'rms-mcp-owner-');
  const file = join(dir, 'mcp.json');
  writeFileSync(file, '{"mcpServers": {}}\n');
  chownSync(file, 12345, 23456);
  chmodSync(file, 0o640);
  const r = await run(['--file', file]);
  assert.equal(r.code, 0, r.err);
  const st = statSync(file);
  assert.deepEqual([st.uid, st.gid, st.mode & 0o7777], [12345, 23456, 0o640]);
  assert.ok('roo-modes' in (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: object }).mcpServers);
});

test('a hard-linked config is refused with a clear message, both names unchanged', async (t) => {
  const dir = scratchDir(t, 'rms-mcp-link-');
  const file = join(dir, 'mcp.json');
  const before = '{"mcpServers": {}}\n';
  writeFileSync(file, before);
  linkSync(file, join(dir, 'other-name.json'));
  const r = await run(['--file', file]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /hard links/);
  assert.equal(readFileSync(file, 'utf8'), before);
  assert.equal(readFileSync(join(dir, 'other-name.json'), 'utf8'), before);
  assert.equal(statSync(file).nlink, 2, 'the link is not broken');
});

for (const [what, make, says] of [
  ['200,000 levels deep', (f: string) => writeFileSync(f, `{"mcpServers": {}, "x": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`), /deeper than/],
  ['300 MB (sparse)', (f: string) => { writeFileSync(f, '{"mcpServers": {}}'); truncateSync(f, 300 * 1024 * 1024); }, /larger than/],
] as const) {
  test(`a config ${what} is refused with exit 2 and one line, unchanged`, async (t) => {
    const dir = scratchDir(t, 'rms-mcp-limit-');
    const file = join(dir, 'mcp.json');
    make(file);
    const size = statSync(file).size;
    const r = await run(['--file', file]);
    assert.equal(r.code, 2, r.err.slice(0, 500));
    assert.equal(r.err.trim().split('\n').length, 1, r.err.slice(0, 500));
    assert.ok(r.err.includes(file), r.err);
    assert.match(r.err, says);
    assert.doesNotMatch(r.err, /RangeError/);
    assert.equal(statSync(file).size, size);
    assert.deepEqual(readdirSync(dir), ['mcp.json'], 'no backup, temp or lock file left');
  });
}
