// The OpenCode / Kilo plugin (`export --plugin`): written by the built CLI with its decision file and
// without this machine's paths, then imported in Node and called as OpenCode calls it, deciding in
// process (or over HTTP with --plugin-url). Bun, where the agents run it, is the real-agent tier's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, tempDir } from './harness.js';
import { runCli } from './cli-run.js';
import { ROWS } from '../unit/paths-table.js';
import { decideToolUse } from '../../src/modes/decide-tool-use.js';
import { loadCatalogue } from '../../src/modes/catalogue.js';
import { readVendored, vendoredText } from '../../src/export/vendored.js';

type Ctx = { after(fn: () => void): void };
type Hooks = {
  'chat.params'(input: { sessionID: string; agent: string }): Promise<void>;
  'chat.message'(input: { sessionID: string; agent?: string }): Promise<void>;
  'tool.execute.before'(input: { tool: string; sessionID: string; callID: string }, output: { args: unknown }): Promise<void>;
};

/** A mode that may read and edit docs/ only (no command group), one that may do anything, one OpenCode's globs cannot carry. */
const ROOMODES = `customModes:
  - slug: docs-writer
    name: Docs writer
    roleDefinition: You write the docs.
    groups:
      - read
      - - edit
        - fileRegex: ^docs/
  - slug: builder
    name: Builder
    roleDefinition: You build.
    groups: [read, edit, command]
  - slug: flat-ts
    name: Flat TS
    roleDefinition: Edits top-level TypeScript.
    groups:
      - - edit
        - fileRegex: "^src/[^/]*\\\\.ts$"
`;

const PLUGIN = join('.opencode', 'plugins', 'roo-modes.js');
const DECISION = join('.opencode', 'roo-modes', 'decision.cjs');

/**
 * A project with the modes, and a global modes folder of its own, which this process (where the
 * plugin runs, as in the agent) reads as $ROO_CONFIG_DIR.
 */
function project(t: Ctx): { root: string; env: Record<string, string> } {
  const root = realpathSync(tempDir(t, 'rms-plugin-'));
  const home = tempDir(t, 'rms-plugin-home-');
  writeFileSync(join(root, '.roomodes'), ROOMODES);
  for (const dir of ['docs', 'src']) mkdirSync(join(root, dir));
  writeFileSync(join(root, 'docs', 'a.md'), '# a\n');
  writeFileSync(join(root, 'src', 'main.ts'), 'export {};\n');
  const env = { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), ROO_PROJECT_ROOT: root };
  const before = process.env.ROO_CONFIG_DIR;
  process.env.ROO_CONFIG_DIR = env.ROO_CONFIG_DIR;
  t.after(() => { if (before === undefined) delete process.env.ROO_CONFIG_DIR; else process.env.ROO_CONFIG_DIR = before; });
  return { root, env };
}

/** `export --to opencode --plugin` for docs-writer and builder, by the built CLI. */
async function exportPlugin(root: string, env: Record<string, string>, extra: string[] = []): Promise<void> {
  const r = await runCli(['export', '--to', 'opencode', '--plugin', '--mode', 'docs-writer', '--mode', 'builder', ...extra], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
}

/** Imports a copy of the exported plugin (a new name each time: Node keeps what it imported) and starts it as OpenCode does. */
async function loadPlugin(root: string, name: string): Promise<Hooks> {
  const file = join(root, '.opencode', 'plugins', name);
  writeFileSync(file, readFileSync(join(root, PLUGIN)));
  const mod = await import(pathToFileURL(file).href) as { RooModesPlugin(input: { directory: string }): Promise<Hooks> };
  return mod.RooModesPlugin({ directory: root });
}

/** undefined when the call may run, else the message the plugin threw. */
async function outcome(hooks: Hooks, tool: string, args: unknown, sessionID = 's1'): Promise<string | undefined> {
  try {
    await hooks['tool.execute.before']({ tool, sessionID, callID: 'call-1' }, { args });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

test('export --plugin writes the plugin and its decision file for the agents it wrote, holding no path of this machine', async (t) => {
  const { root, env } = project(t);
  const r = await runCli(['export', '--to', 'opencode', '--plugin', '--mode', 'docs-writer', '--mode', 'builder', '--mode', 'flat-ts'], { env, cwd: root });
  assert.equal(r.code, 1, 'flat-ts has no exact glob, so the export reports a refusal');
  assert.match(r.stdout, /wrote: .*\.opencode\/roo-modes\/decision\.cjs\n {2}wrote: .*\.opencode\/plugins\/roo-modes\.js/, 'the decision file first');
  assert.match(r.stdout, /enforcement: OpenCode: .*decides inside OpenCode with \.opencode\/roo-modes\/decision\.cjs .*fails closed/);
  const text = readFileSync(join(root, PLUGIN), 'utf8');
  const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
  assert.ok(text.startsWith(`// Exported by roo-modes-server ${version} from modes builder, docs-writer;`));
  const modes = JSON.parse(/const MODES = (\{[\s\S]*?\});/.exec(text)![1]!) as Record<string, string>;
  assert.deepEqual(modes, { builder: 'builder', 'docs-writer': 'docs-writer' }, 'the refused mode has no agent, so it is not judged');
  assert.doesNotMatch(text, /^import /m, 'the plugin imports nothing when it loads');
  const decision = readFileSync(join(root, DECISION), 'utf8');
  const header = readVendored(decision)!;
  assert.deepEqual(header, { name: 'roo-modes-decision', version, sha256: JSON.parse(/const DECISION = (\{.*\});/.exec(text)![1]!).sha256, intact: true }, 'the plugin pins the decision file it was written with');
  assert.equal(decision, readFileSync(join(REPO, 'dist', 'plugin-decision.cjs'), 'utf8'), 'the built decision file, byte for byte');
  for (const written of [text, decision]) {
    for (const place of [root, env.HOME!, REPO.replace(/\/$/, ''), process.execPath]) assert.ok(!written.includes(place), `an exported file names ${place}`);
  }

  const kilo = await runCli(['export', '--to', 'kilo', '--plugin', '--mode', 'docs-writer'], { env, cwd: root });
  assert.equal(kilo.code, 0, kilo.stdout + kilo.stderr);
  assert.ok(existsSync(join(root, '.kilo', 'plugin', 'roo-modes.js')));
  assert.equal(readFileSync(join(root, '.kilo', 'roo-modes', 'decision.cjs'), 'utf8'), decision, 'the same decision code for both agents');
  assert.match(kilo.stdout, /enforcement: Kilo Code 7: .*KILO_PURE=1 skips plugins/);
  const again = await runCli(['export', '--to', 'kilo', '--plugin', '--mode', 'docs-writer'], { env, cwd: root });
  assert.match(again.stdout, /unchanged: .*\.kilo\/roo-modes\/decision\.cjs\n {2}unchanged: .*\.kilo\/plugin\/roo-modes\.js/);
  const check = await runCli(['export', '--to', 'kilo', '--plugin', '--mode', 'docs-writer', '--check'], { env, cwd: root });
  assert.equal(check.code, 0, check.stdout);

  const url = 'http://127.0.0.1:3000/hooks/claude-code';
  const http = await runCli(['export', '--to', 'opencode', '--plugin', '--plugin-url', url, '--mode', 'docs-writer', '--out', join(root, 'http')], { env, cwd: root });
  assert.equal(http.code, 0, http.stdout + http.stderr);
  assert.match(readFileSync(join(root, 'http', PLUGIN), 'utf8'), new RegExp(`^const ENDPOINT = "${url}";$`, 'm'));
  assert.ok(!existsSync(join(root, 'http', DECISION)), 'the HTTP plugin needs no decision file');
  assert.match(http.stdout, /it asks http:\/\/127\.0\.0\.1:3000\/hooks\/claude-code .*keep roo-modes-server serve --http running/);

  for (const [args, why] of [
    [['--to', 'cursor', '--plugin'], /--plugin goes with --to opencode or kilo/],
    [['--to', 'opencode', '--plugin-url', url], /--plugin-url goes with --plugin/],
    [['--to', 'opencode', '--plugin', '--plugin-url', 'file:///tmp/x'], /is not an http\(s\) URL/],
    [['--to', 'opencode', '--plugin', '--plugin-url', `${url}?mode=docs-writer`], /with a path and no query/],
    [['--to', 'kilo', '--plugin', '--hook-command', 'npx roo-modes-server'], /--hook-command has no use with --to kilo: its --plugin decides inside the agent/],
  ] as const) {
    const wrong = await runCli(['export', ...args], { env, cwd: root });
    assert.equal(wrong.code, 2, args.join(' '));
    assert.match(wrong.stderr, why);
  }
});

test('export --check finds a decision file that was changed, is from another version, or is missing', async (t) => {
  const { root, env } = project(t);
  await exportPlugin(root, env);
  const file = join(root, DECISION);
  const good = readFileSync(file, 'utf8');
  const check = (): Promise<{ code: number | null; stdout: string }> => runCli(['export', '--to', 'opencode', '--plugin', '--mode', 'docs-writer', '--mode', 'builder', '--check'], { env, cwd: root });
  const cases: [string, RegExp][] = [
    [good.replace("'use strict';", "'use strict'; "), /stale: .*decision\.cjs \(edited since export .* wrote it: its code no longer hashes to its sha256:[0-9a-f]{12}\)/],
    [vendoredText('decision', '0.0.1', "'use strict';\n"), /stale: .*decision\.cjs \(roo-modes-decision 0\.0\.1 sha256:[0-9a-f]{12}; this export writes .* sha256:[0-9a-f]{12}\)/],
    [good.replace("OpenCode/Kilo plugin", "OpenCode plugin"), /stale: .*decision\.cjs \(its comment lines were edited\)/],
  ];
  for (const [text, why] of cases) {
    writeFileSync(file, text);
    const r = await check();
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, why);
    assert.match(r.stdout, /unchanged: .*plugins\/roo-modes\.js/);
  }
  rmSync(file);
  const gone = await check();
  assert.equal(gone.code, 1);
  assert.match(gone.stdout, /missing: .*decision\.cjs/);
  assert.ok(!existsSync(file), '--check writes nothing');
  await exportPlugin(root, env);
  assert.equal(readFileSync(file, 'utf8'), good, 'a re-export puts it back');
});

test('the plugin blocks and allows edits as validate_tool_use does on the path table', async (t) => {
  const { root, env } = project(t);
  await exportPlugin(root, env);
  const hooks = await loadPlugin(root, 'table.js');
  await hooks['chat.params']({ sessionID: 's1', agent: 'docs-writer' });
  const mode = (await loadCatalogue({ projectRoot: root, configDir: env.ROO_CONFIG_DIR!, globalModesFile: null })).get('docs-writer')!;
  // The table's paths (its project /p being this one): the rows about patterns, and those refused
  // for any mode; rows for other roots are left out. Edit and write take turns.
  const rows = ROWS.filter(([raw, pattern, expect, options]) => options === undefined && raw.length < 200 && (pattern !== 'none' || !expect.startsWith('ok')))
    .map(([raw]) => (raw.startsWith('/p/') || raw === '/p' ? root + raw.slice(2) : raw));
  let allowed = 0;
  let refused = 0;
  for (const [i, raw] of rows.entries()) {
    const expected = decideToolUse(mode, 'write_to_file', { path: raw }, { projectRoot: root, confineToProjectRoot: true });
    const tool = i % 2 === 0 ? 'edit' : 'write';
    const got = await outcome(hooks, tool, { filePath: raw, content: 'x' });
    assert.equal(got === undefined, expected.allowed, `${tool} ${JSON.stringify(raw)}: validate_tool_use says ${expected.reason}; the plugin says ${got ?? 'allowed'}`);
    if (!expected.allowed) assert.match(got!, /^(Mode docs-writer \(roo-modes-server\): |roo-modes-server: blocked: mode docs-writer could not be checked: )/);
    if (expected.allowed) allowed++; else refused++;
  }
  assert.ok(allowed >= 8 && refused >= 30, `${allowed} allowed, ${refused} refused`);

  for (const [file, ok] of [['docs/new.md', true], ['src/main.ts', false], [`${root}/docs/a.md`, true], ['../outside.md', false]] as const) {
    const patchText = `*** Begin Patch\n*** Update File: ${file}\n@@\n-a\n+b\n*** End Patch`;
    assert.equal(await outcome(hooks, 'patch', { patchText }) === undefined, ok, `patch ${file}`);
  }
  assert.match((await outcome(hooks, 'edit', { filePath: 'src/main.ts' }))!, /Mode docs-writer \(roo-modes-server\).*\^docs\//);
  assert.match((await outcome(hooks, 'bash', { command: 'ls' }))!, /"command" group/, 'a mode without command may not run bash');
  assert.equal(await outcome(hooks, 'read', { filePath: 'src/main.ts' }), undefined);
  assert.match((await outcome(hooks, 'write', { filePath: 42 }))!, /could not be checked: tool_input\.filePath must be a non-empty string/);
});

test('the plugin judges only agents exported from modes, and follows the session\'s agent', async (t) => {
  const { root, env } = project(t);
  await exportPlugin(root, env);
  const hooks = await loadPlugin(root, 'agents.js');
  await hooks['chat.message']({ sessionID: 's1', agent: 'build' });
  assert.equal(await outcome(hooks, 'edit', { filePath: 'src/main.ts' }), undefined, 'OpenCode\'s own agent is left alone');
  await hooks['chat.params']({ sessionID: 's1', agent: 'docs-writer' });
  assert.match((await outcome(hooks, 'edit', { filePath: 'src/main.ts' }))!, /\^docs\//);
  await hooks['chat.params']({ sessionID: 's2', agent: 'builder' });
  assert.equal(await outcome(hooks, 'edit', { filePath: 'src/main.ts' }, 's2'), undefined, 'another session, another agent');
  assert.equal(await outcome(hooks, 'bash', { command: 'ls' }, 's2'), undefined);
  assert.match((await outcome(hooks, 'edit', { filePath: '/etc/passwd' }, 's2'))!, /Path refused/, 'outside the project, even for a mode that may edit anything');
  assert.match((await outcome(hooks, 'read', { filePath: 'docs/a.md' }, 'never-seen'))!, /cannot tell which agent/);
});

test('the plugin blocks every call of an exported agent while its decision code cannot load, and recovers once it can', async (t) => {
  const { root, env } = project(t);
  await exportPlugin(root, env);
  const file = join(root, DECISION);
  const good = readFileSync(file, 'utf8');
  const blocked = /^roo-modes-server: blocked: mode docs-writer could not be checked: the decision code cannot be loaded: /;
  rmSync(file);
  const hooks = await loadPlugin(root, 'broken.js');
  await hooks['chat.params']({ sessionID: 's1', agent: 'docs-writer' });
  await hooks['chat.params']({ sessionID: 's9', agent: 'build' });
  const missing = await outcome(hooks, 'read', { filePath: 'docs/a.md' });
  assert.match(missing!, blocked);
  assert.match(missing!, /cannot read .*decision\.cjs \(ENOENT\); export again/);
  assert.equal(await outcome(hooks, 'edit', { filePath: 'src/main.ts' }, 's9'), undefined, 'an agent not from a mode is not judged');
  const cases: [string, RegExp][] = [
    [good.replace("'use strict';", "'use strict'; "), /decision\.cjs is not the decision code exported with this plugin/],
    [good.slice(0, 5000), /is not the decision code exported with this plugin/],
    ['', /is not the decision code exported with this plugin/],
  ];
  for (const [text, why] of cases) {
    writeFileSync(file, text);
    for (const [tool, args] of [['edit', { filePath: 'docs/ok.md' }], ['read', { filePath: 'docs/a.md' }]] as const) {
      const got = await outcome(hooks, tool, args);
      assert.match(got!, blocked, `${tool} with ${text.length} bytes`);
      assert.match(got!, why);
    }
  }
  writeFileSync(file, good);
  assert.equal(await outcome(hooks, 'edit', { filePath: 'docs/ok.md' }), undefined, 'loads at the next call once the file is right again');
  assert.match((await outcome(hooks, 'edit', { filePath: 'src/main.ts' }))!, /^Mode docs-writer/);
});

test('over HTTP the plugin posts the event with the token and blocks on anything but {} or a denial', async (t) => {
  const { root, env } = project(t);
  const seen: { url: string; auth: string | undefined; body: Record<string, unknown> }[] = [];
  const answers: [number, string][] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => {
      seen.push({ url: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(body) as Record<string, unknown> });
      const [status, text] = answers.shift()!;
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const port = (server.address() as AddressInfo).port;
  const before = process.env.ROO_MODES_HTTP_TOKEN;
  process.env.ROO_MODES_HTTP_TOKEN = 'sekret';
  t.after(() => { process.env.ROO_MODES_HTTP_TOKEN = before; server.close(); });
  await exportPlugin(root, env, ['--plugin-url', `http://127.0.0.1:${port}/hooks/claude-code`]);
  const hooks = await loadPlugin(root, 'http.js');
  await hooks['chat.params']({ sessionID: 's1', agent: 'docs-writer' });

  answers.push([200, '{}']);
  assert.equal(await outcome(hooks, 'edit', { filePath: 'docs/a.md', oldString: 'a', newString: 'b' }), undefined);
  assert.deepEqual(seen[0], {
    url: '/hooks/claude-code?mode=docs-writer', auth: 'Bearer sekret',
    body: { hook_event_name: 'PreToolUse', tool_name: 'edit', tool_input: { filePath: 'docs/a.md', oldString: 'a', newString: 'b' }, cwd: root },
  });
  const deny = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'Mode docs-writer: not under docs/' } };
  const cases: [number, string, RegExp][] = [
    [200, JSON.stringify(deny), /^Mode docs-writer: not under docs\/$/],
    [500, '{"error":"boom"}', /could not be checked: HTTP 500: \{"error":"boom"\}/],
    [401, '', /HTTP 401$/],
    [200, 'fine', /unexpected answer: fine/],
    [200, JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } }), /unexpected answer/],
    [200, '[]', /unexpected answer: \[\]/],
  ];
  for (const [status, text, why] of cases) {
    answers.push([status, text]);
    assert.match((await outcome(hooks, 'edit', { filePath: 'src/main.ts' }))!, why, `${status} ${text}`);
  }
  assert.equal(seen.length, 1 + cases.length);
  await new Promise<void>((closed) => { server.close(() => closed()); server.closeAllConnections(); });
  assert.match((await outcome(hooks, 'read', { filePath: 'docs/a.md' }))!, /blocked: mode docs-writer could not be checked: cannot reach http:\/\/127\.0\.0\.1:\d+\/hooks\/claude-code: \w+$/);

  // A port nothing listens on (taken, then freed): the connection is refused, and so is the call.
  const probe = createServer();
  await new Promise<void>((ready) => probe.listen(0, '127.0.0.1', ready));
  const free = (probe.address() as AddressInfo).port;
  await new Promise<void>((closed) => probe.close(() => closed()));
  await exportPlugin(root, env, ['--plugin-url', `http://127.0.0.1:${free}/hooks/claude-code`]);
  const down = await loadPlugin(root, 'down.js');
  await down['chat.params']({ sessionID: 's1', agent: 'docs-writer' });
  assert.match((await outcome(down, 'read', { filePath: 'docs/a.md' }))!, /cannot reach .*: ECONNREFUSED$/);
});

