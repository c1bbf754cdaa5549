import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCall } from '../../src/cli/call.js';
import { ShellWordsError, splitShellWords } from '../../src/export/shell-words.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/fake-mcp-server.mjs', import.meta.url));
/** A --server value that survives spaces in either path. */
const serverLine = (...flags: string[]): string => [process.execPath, FIXTURE, ...flags].map((w) => `'${w}'`).join(' ');

async function call(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCall(argv, {
    out: (t) => { out += t; },
    err: (t) => { err += t; },
    env: process.env,
    selfCommand: [process.execPath, FIXTURE],
  });
  return { code, out, err };
}

async function script(t: { after(fn: () => Promise<void>): void }, lines: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'call-script-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'calls.jsonl');
  await writeFile(file, lines.join('\n') + '\n');
  return file;
}

test('calls a tool on this server by default and types --arg values by the input schema', async () => {
  const r = await call(['echo', '--arg', 'message=hi', '--arg', 'count=3', '--arg', 'ratio=0.5', '--arg', 'loud=true', '--arg', 'options={"a":1}', '--arg', 'tags=["x"]']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), { message: 'hi', count: 3, ratio: 0.5, loud: true, options: { a: 1 }, tags: ['x'] });
});

test('merges --json with --arg, and --arg wins', async () => {
  const r = await call(['echo', '--json', '{"message":"from json","count":1}', '--arg', 'count=2', '--server', serverLine()]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), { message: 'from json', count: 2 });
});

test('prints the whole result as JSON with --raw', async () => {
  const r = await call(['create_session', '--raw', '--server', serverLine()]);
  assert.equal(r.code, 0, r.err);
  const result = JSON.parse(r.out) as { metadata: { session_id: string } };
  assert.match(result.metadata.session_id, /^ses_/);
});

test('sends names with a slash, and ping, as raw methods', async () => {
  const list = await call(['resources/read', '--arg', 'uri=fake://item/2']);
  assert.equal(list.code, 0, list.err);
  assert.equal(list.out, 'contents of fake://item/2\n');
  const ping = await call(['ping', '--raw']);
  assert.equal(ping.code, 0, ping.err);
  assert.deepEqual(JSON.parse(ping.out), {});
});

test('exits 1 with code and message on stderr for a JSON-RPC error', async () => {
  const r = await call(['mode_error', '--json', '{"slug":"nope"}']);
  assert.equal(r.code, 1);
  assert.match(r.err, /^error -32001: Mode not found: nope$/m);
  assert.equal(r.out, '');
});

test('exits 1 for an isError tool result, naming its code', async () => {
  const r = await call(['fail']);
  assert.equal(r.code, 1);
  assert.match(r.err, /^error -32004: Validation failed: on purpose$/m);
});

test('runs a script in one session and fills $prev and $1 references from earlier results', async (t) => {
  const file = await script(t, [
    '{"tool": "create_session", "arguments": {"mode": "ask"}}',
    '',
    '{"tool": "echo", "arguments": {"message": "$prev.metadata.session_id", "tags": ["$1.metadata.list[1].id"]}}',
    '{"method": "resources/read", "params": {"uri": "$1.metadata.mode"}}',
  ]);
  const r = await call(['--script', file, '--raw']);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trimEnd().split('\n').map((l) => JSON.parse(l) as { metadata?: { session_id?: string; args?: unknown }; contents?: Array<{ text: string }> });
  assert.equal(lines.length, 3, 'one line per call');
  const sessionId = lines[0]?.metadata?.session_id;
  assert.match(sessionId ?? '', /^ses_/);
  assert.deepEqual(lines[1]?.metadata?.args, { message: sessionId, tags: ['b'] });
  assert.equal(lines[2]?.contents?.[0]?.text, 'contents of ask');
});

test('stops a script with a usage error naming the line when a referenced field is missing', async (t) => {
  const file = await script(t, [
    '{"tool": "create_session"}',
    '{"tool": "echo", "arguments": {"message": "$prev.metadata.nothing_here"}}',
  ]);
  const r = await call(['--script', file]);
  assert.equal(r.code, 2);
  assert.match(r.err, /line 2: .*no field "nothing_here" in the result of line 1/);
});

test('refuses a script reference to a line that is not an earlier call, before starting a server', async (t) => {
  const file = await script(t, ['{"tool": "echo", "arguments": {"message": "$2.x"}}', '{"tool": "echo"}']);
  const r = await call(['--script', file, '--server', '/nonexistent/server']);
  assert.equal(r.code, 2);
  assert.match(r.err, /line 1: \$2\.x refers to line 2, which is not an earlier call/);
});

test('exits 1 with a timeout message when the tool never answers', async () => {
  // The limit counts start-up too: generous enough for a loaded machine to start the fixture.
  const r = await call(['slow', '--timeout', '3000', '--server', serverLine()]);
  assert.equal(r.code, 1);
  assert.match(r.err, /timed out after 3000 ms \(waiting for tools\/call\)/);
});

test('counts start-up in the timeout: a server that never answers initialize times out', async () => {
  const r = await call(['echo', '--timeout', '300', '--server', serverLine('--never-answer=*')]);
  assert.equal(r.code, 1);
  assert.match(r.err, /timed out after 300 ms \(waiting for initialize\)/);
});

test('exits 2 with the stderr tail when the server exits early', async () => {
  const r = await call(['echo', '--server', serverLine('--exit-early=5')]);
  assert.equal(r.code, 2);
  assert.match(r.err, /exited with code 5/);
  assert.match(r.err, /refusing to start/);
});

test('exits 2 when the server command cannot be started', async () => {
  const r = await call(['echo', '--server', '/nonexistent/roo server']);
  assert.equal(r.code, 2);
  assert.match(r.err, /cannot start MCP server "\/nonexistent\/roo"/);
});

test('exits 2 on usage errors with a pointer to --help', async () => {
  for (const argv of [[], ['a', 'b'], ['echo', '--bogus'], ['echo', '--json', '[1]'], ['echo', '--arg', 'novalue'], ['echo', '--timeout', 'soon'], ['echo', '--server', "'unclosed"]]) {
    const r = await call(argv);
    assert.equal(r.code, 2, `argv ${JSON.stringify(argv)}`);
    assert.match(r.err, /^roo-modes-server call: .* \(see roo-modes-server call --help\)\n$/, `argv ${JSON.stringify(argv)}`);
  }
});

test('exits 2 when an --arg value does not fit its schema type', async () => {
  const r = await call(['echo', '--arg', 'count=1.5']);
  assert.equal(r.code, 2);
  assert.match(r.err, /--arg count: expected an integer, got "1.5"/);
});

test('prints usage for --help and exits 0', async () => {
  const r = await call(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.out, /call --script FILE/);
});

test('shell words: splits on runs of spaces and tabs', () => {
  assert.deepEqual(splitShellWords('  node   server.js\t--flag  '), ['node', 'server.js', '--flag']);
  assert.deepEqual(splitShellWords(''), []);
});

test('shell words: keeps single-quoted text literally, backslashes included', () => {
  assert.deepEqual(splitShellWords(`node '/my dir/a b.js' 'x\\y'`), ['node', '/my dir/a b.js', 'x\\y']);
});

test('shell words: honours the four escapes inside double quotes and keeps other backslashes', () => {
  assert.deepEqual(splitShellWords(String.raw`"a \"b\" \\ \$HOME \n"`), [String.raw`a "b" \ $HOME \n`]);
});

test('shell words: joins adjacent quoted and unquoted pieces into one word', () => {
  assert.deepEqual(splitShellWords(`--name="a b"'c d'e`), ['--name=a bc de']);
});

test('shell words: a bare backslash makes the next character literal', () => {
  assert.deepEqual(splitShellWords(String.raw`a\ b c\'d`), ['a b', "c'd"]);
});

test('shell words: an empty pair of quotes is an empty word', () => {
  assert.deepEqual(splitShellWords(`cmd '' ""`), ['cmd', '', '']);
});

test('shell words: expands nothing — variables, tildes and globs stay as typed', () => {
  assert.deepEqual(splitShellWords('echo $HOME ~ *.js `id`'), ['echo', '$HOME', '~', '*.js', '`id`']);
});

test('shell words: refuses unterminated quotes and a trailing backslash, naming the column', () => {
  assert.throws(() => splitShellWords(`node 'oops`), (e: unknown) => e instanceof ShellWordsError && /single quote at column 6/.test(e.message));
  assert.throws(() => splitShellWords('node "oops'), ShellWordsError);
  assert.throws(() => splitShellWords('node \\'), ShellWordsError);
});
