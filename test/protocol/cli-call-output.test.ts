// How the built `call` prints a script's answers: as text, each opens with a line naming its call;
// with a bare --json, one JSON line per call (result or error); a single call keeps its old output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './harness.js';
import { runCli } from './cli-run.js';

/** A project folder holding a script of calls; the server `call` starts serves that folder. */
function scriptIn(t: { after(fn: () => void): void }, calls: object[]): { cwd: string; file: string } {
  const cwd = tempDir(t, 'rms-call-out-');
  const file = join(cwd, 'calls.jsonl');
  writeFileSync(file, `${calls.map((c) => JSON.stringify(c)).join('\n')}\n`);
  return { cwd, file };
}

const CREATE = { tool: 'create_task', arguments: { mode_slug: 'architect' } };
const ALLOWED = { tool: 'validate_tool_use', arguments: { session_id: '$prev.structuredContent.session_id', tool_name: 'write_to_file', file_path: 'docs/a.md', enforce: true } };
const READ = { method: 'resources/read', params: { uri: 'mode://ask' } };
const REFUSED = { tool: 'validate_tool_use', arguments: { session_id: '$1.structuredContent.session_id', tool_name: 'write_to_file', file_path: 'src/a.py', enforce: true } };

test('call --script opens each answer with a line naming its call, a blank line apart', async (t) => {
  const { cwd, file } = scriptIn(t, [CREATE, ALLOWED, READ]);
  const r = await runCli(['call', '--script', file], { cwd });
  assert.equal(r.code, 0, r.stderr);
  const sections = r.stdout.split(/\n(?===> )/);
  assert.deepEqual(sections.map((s) => s.split('\n')[0]), [
    '==> line 1: create_task <==',
    '==> line 2: validate_tool_use <==',
    '==> line 3: resources/read <==',
  ]);
  assert.match(sections[0]!, /\nCreated task task_\w+ in .*\(architect\)\./);
  assert.match(sections[1]!, /\n✓ allowed: write_to_file on docs\/a\.md/);
  assert.match(sections[2]!, /\n.*Ask/);
  for (const s of sections.slice(0, -1)) assert.ok(s.endsWith('\n'), 'a blank line before the next heading');
  assert.equal(r.stderr, '');
});

test('a failing call in a script has its heading on stdout and its error on stderr, naming its line', async (t) => {
  const { cwd, file } = scriptIn(t, [CREATE, REFUSED, READ]);
  const r = await runCli(['call', '--script', file], { cwd });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /\n==> line 2: validate_tool_use <==\n$/, 'the script stopped at line 2');
  assert.match(r.stderr, /^line 2: error -32006: Tool 'write_to_file' in mode .* Got: src\/a\.py\n/);
});

test('call --script --json prints one JSON line per call: its line, its name, its result or error', async (t) => {
  const { cwd, file } = scriptIn(t, [CREATE, READ, REFUSED]);
  const r = await runCli(['call', '--script', file, '--json'], { cwd });
  assert.equal(r.code, 1);
  const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(lines.length, 3, r.stdout);
  assert.deepEqual(lines.map((l) => [l.line, l.tool ?? l.method]), [[1, 'create_task'], [2, 'resources/read'], [3, 'validate_tool_use']]);
  assert.match(String((lines[0]!.result as { structuredContent: { session_id: string } }).structuredContent.session_id), /^ses_/);
  assert.equal(lines[1]!.method, 'resources/read');
  assert.ok(Array.isArray((lines[1]!.result as { contents: unknown[] }).contents));
  const error = lines[2]!.error as { code: number; message: string; data: { allowed: boolean } };
  assert.equal(error.code, -32006);
  assert.equal(error.data.allowed, false);
  assert.equal(lines[2]!.result, undefined);
  assert.match(r.stderr, /^line 3: error -32006: /, 'the error is also told on stderr');
});

test('a single call with a bare --json is one JSON line without a script line; --json {...} still gives arguments', async (t) => {
  const cwd = tempDir(t, 'rms-call-out-');
  const one = await runCli(['call', 'get_mode_info', '--arg', 'mode_slug=ask', '--json'], { cwd });
  assert.equal(one.code, 0, one.stderr);
  const lines = one.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 1);
  const record = JSON.parse(lines[0]!) as { line?: number; tool: string; result: { structuredContent: { slug: string } } };
  assert.deepEqual([record.line, record.tool, record.result.structuredContent.slug], [undefined, 'get_mode_info', 'ask']);
  const args = await runCli(['call', 'get_mode_info', '--json', '{"mode_slug":"ask"}', '--raw'], { cwd });
  assert.equal(args.code, 0, args.stderr);
  assert.equal((JSON.parse(args.stdout) as { structuredContent: { slug: string } }).structuredContent.slug, 'ask');
  const both = await runCli(['call', 'list_modes', '--json', '--raw'], { cwd });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--raw and --json \(one JSON line per call\) are two ways to print; give one/);
});
