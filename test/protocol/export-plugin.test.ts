// The OpenCode / Kilo plugin (`export --plugin`): written by the built CLI without this machine's
// paths, then imported in Node and called as OpenCode calls it, deciding through the built CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MAIN, REPO, tempDir } from './harness.js';
import { runCli } from './cli-run.js';
import { ROWS } from '../unit/paths-table.js';
import { openCodePlugin } from '../../src/export/opencode-plugin.js';
import { decideToolUse } from '../../src/modes/decide-tool-use.js';
import { loadCatalogue } from '../../src/modes/catalogue.js';

type Ctx = { after(fn: () => void): void };
type Hooks = {
  'chat.params'(input: { sessionID: string; agent: string }): Promise<void>;
  'chat.message'(input: { sessionID: string; agent?: string }): Promise<void>;
  'tool.execute.before'(input: { tool: string; sessionID: string; callID: string }, output: { args: unknown }): Promise<void>;
};

/** A mode that may read and edit docs/ only (no command group), and one that may do anything. */
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

function project(t: Ctx): { root: string; env: Record<string, string> } {
  const root = realpathSync(tempDir(t, 'rms-plugin-'));
  const home = tempDir(t, 'rms-plugin-home-');
  writeFileSync(join(root, '.roomodes'), ROOMODES);
  for (const dir of ['docs', 'src']) mkdirSync(join(root, dir));
  writeFileSync(join(root, 'docs', 'a.md'), '# a\n');
  writeFileSync(join(root, 'src', 'main.ts'), 'export {};\n');
  return { root, env: { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), ROO_PROJECT_ROOT: root } };
}

/** A folder holding `roo-modes-server` (a shim running this build, or `body`), put first on PATH. */
function launcherOnPath(t: Ctx, body = `exec "${process.execPath}" "${MAIN}" "$@"`): void {
  const bin = tempDir(t, 'rms-plugin-bin-');
  writeFileSync(join(bin, 'roo-modes-server'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, 'roo-modes-server'), 0o755);
  const before = process.env.PATH;
  process.env.PATH = `${bin}:${before ?? ''}`;
  t.after(() => { process.env.PATH = before; });
}

/** Writes the plugin into the project as the export does, with the portable launcher, and loads it. */
async function loadPlugin(root: string, name = 'roo-modes.js', url?: string, entryCommand = ['roo-modes-server']): Promise<Hooks> {
  const file = join(root, '.opencode', 'plugins', name);
  mkdirSync(join(root, '.opencode', 'plugins'), { recursive: true });
  writeFileSync(file, openCodePlugin(new Map([['docs-writer', 'docs-writer'], ['builder', 'builder']]), { entryCommand, url }));
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

test('export --plugin writes the plugin for the agents it wrote, holding no path of this machine', async (t) => {
  const { root, env } = project(t);
  const r = await runCli(['export', '--to', 'opencode', '--plugin', '--mode', 'docs-writer', '--mode', 'builder', '--mode', 'flat-ts'], { env, cwd: root });
  assert.equal(r.code, 1, 'flat-ts has no exact glob, so the export reports a refusal');
  assert.match(r.stdout, /wrote: .*\.opencode\/plugins\/roo-modes\.js/);
  assert.match(r.stdout, /enforcement: OpenCode: .*fails closed/);
  const text = readFileSync(join(root, '.opencode', 'plugins', 'roo-modes.js'), 'utf8');
  assert.match(text, /^\/\/ Exported by roo-modes-server from modes builder, docs-writer;/);
  const modes = JSON.parse(/const MODES = (\{[\s\S]*?\});/.exec(text)![1]!) as Record<string, string>;
  assert.deepEqual(modes, { builder: 'builder', 'docs-writer': 'docs-writer' }, 'the refused mode has no agent, so it is not judged');
  assert.match(text, /^const LAUNCHER = \["roo-modes-server"\];$/m, 'the launcher is found on PATH');
  for (const place of [root, env.HOME!, REPO.replace(/\/$/, ''), process.execPath]) assert.ok(!text.includes(place), `the plugin names ${place}`);

  const kilo = await runCli(['export', '--to', 'kilo', '--plugin', '--mode', 'docs-writer'], { env, cwd: root });
  assert.equal(kilo.code, 0, kilo.stdout + kilo.stderr);
  assert.ok(existsSync(join(root, '.kilo', 'plugin', 'roo-modes.js')));
  assert.match(kilo.stdout, /enforcement: Kilo Code 7: .*KILO_PURE=1 skips plugins/);

  const again = await runCli(['export', '--to', 'kilo', '--plugin', '--mode', 'docs-writer'], { env, cwd: root });
  assert.match(again.stdout, /unchanged: .*\.kilo\/plugin\/roo-modes\.js/);

  const url = 'http://127.0.0.1:3000/hooks/claude-code';
  const http = await runCli(['export', '--to', 'opencode', '--plugin', '--plugin-url', url, '--mode', 'docs-writer', '--out', join(root, 'http')], { env, cwd: root });
  assert.equal(http.code, 0, http.stdout + http.stderr);
  assert.match(readFileSync(join(root, 'http', '.opencode', 'plugins', 'roo-modes.js'), 'utf8'), new RegExp(`^const ENDPOINT = "${url}";$`, 'm'));

  for (const [args, why] of [
    [['--to', 'cursor', '--plugin'], /--plugin goes with --to opencode or kilo/],
    [['--to', 'opencode', '--plugin-url', url], /--plugin-url goes with --plugin/],
    [['--to', 'opencode', '--plugin', '--plugin-url', 'file:///tmp/x'], /is not an http\(s\) URL/],
    [['--to', 'opencode', '--plugin', '--plugin-url', `${url}?mode=docs-writer`], /with a path and no query/],
  ] as const) {
    const wrong = await runCli(['export', ...args], { env, cwd: root });
    assert.equal(wrong.code, 2, args.join(' '));
    assert.match(wrong.stderr, why);
  }
});

test('the plugin blocks and allows edits as validate_tool_use does on the path table', async (t) => {
  const { root } = project(t);
  launcherOnPath(t);
  const hooks = await loadPlugin(root);
  await hooks['chat.params']({ sessionID: 's1', agent: 'docs-writer' });
  const mode = (await loadCatalogue({ projectRoot: root, configDir: join(root, 'none'), globalModesFile: null })).get('docs-writer')!;
  // The table's paths (its project /p being this one): the rows about patterns, and those refused
  // for any mode; rows for other roots are left out. Each spawns the hook, so edit and write take turns.
  const rows = ROWS.filter(([raw, pattern, expect, options]) => options === undefined && raw.length < 200 && (pattern !== 'none' || !expect.startsWith('ok')))
    .map(([raw]) => (raw.startsWith('/p/') || raw === '/p' ? root + raw.slice(2) : raw));
  let allowed = 0;
  let refused = 0;
  for (const [i, raw] of rows.entries()) {
    const expected = decideToolUse(mode, 'write_to_file', { path: raw }, { projectRoot: root, confineToProjectRoot: true });
    const tool = i % 2 === 0 ? 'edit' : 'write';
    const got = await outcome(hooks, tool, { filePath: raw, content: 'x' });
    assert.equal(got === undefined, expected.allowed, `${tool} ${JSON.stringify(raw)}: validate_tool_use says ${expected.reason}; the plugin says ${got ?? 'allowed'}`);
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
});

test('the plugin judges only agents exported from modes, and follows the session\'s agent', async (t) => {
  const { root } = project(t);
  launcherOnPath(t);
  const hooks = await loadPlugin(root);
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

test('the plugin blocks when no decision can be had: launcher missing, failing or answering nonsense', async (t) => {
  const { root } = project(t);
  const saved = process.env.PATH;
  t.after(() => { process.env.PATH = saved; });
  process.env.PATH = tempDir(t, 'rms-plugin-empty-');
  const hooks = await loadPlugin(root, 'missing.js');
  await hooks['chat.params']({ sessionID: 's1', agent: 'docs-writer' });
  await hooks['chat.params']({ sessionID: 's9', agent: 'build' });
  assert.match((await outcome(hooks, 'read', { filePath: 'docs/a.md' }))!, /blocked: mode docs-writer could not be checked .*cannot run roo-modes-server: .*ENOENT/);
  assert.equal(await outcome(hooks, 'edit', { filePath: 'src/main.ts' }, 's9'), undefined, 'an agent not from a mode needs no launcher');

  const cases: [string, string, RegExp][] = [
    ['exit1.js', 'echo broken >&2; exit 1', /exited with 1: broken/],
    ['exit2.js', 'cat >/dev/null; echo "cannot judge" >&2; exit 2', /exited with 2: cannot judge/],
    ['text.js', 'cat >/dev/null; echo "all good"', /unexpected answer: all good/],
    ['allow.js', `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`, /unexpected answer/],
    ['killed.js', 'kill -9 $$', /exited with SIGKILL/],
  ];
  for (const [name, body, why] of cases) {
    process.env.PATH = saved;
    launcherOnPath(t, body);
    const broken = await loadPlugin(root, name);
    await broken['chat.params']({ sessionID: 's1', agent: 'docs-writer' });
    assert.match((await outcome(broken, 'read', { filePath: 'docs/a.md' }))!, why, name);
  }
});

test('over HTTP the plugin posts the event with the token and blocks on anything but {} or a denial', async (t) => {
  const { root } = project(t);
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
  const hooks = await loadPlugin(root, 'http.js', `http://127.0.0.1:${port}/hooks/claude-code`);
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
    [500, '{"error":"boom"}', /could not be checked .*: HTTP 500: \{"error":"boom"\}/],
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
  assert.match((await outcome(hooks, 'read', { filePath: 'docs/a.md' }))!, /blocked: mode docs-writer could not be checked .*cannot reach http:\/\/127\.0\.0\.1:\d+\/hooks\/claude-code: \w+$/);

  // A port nothing listens on (taken, then freed): the connection is refused, and so is the call.
  const probe = createServer();
  await new Promise<void>((ready) => probe.listen(0, '127.0.0.1', ready));
  const free = (probe.address() as AddressInfo).port;
  await new Promise<void>((closed) => probe.close(() => closed()));
  const down = await loadPlugin(root, 'down.js', `http://127.0.0.1:${free}/hooks/claude-code`);
  await down['chat.params']({ sessionID: 's1', agent: 'docs-writer' });
  assert.match((await outcome(down, 'read', { filePath: 'docs/a.md' }))!, /cannot reach .*: ECONNREFUSED$/);
});

test('a project-local launcher (${CLAUDE_PROJECT_DIR}/node_modules/.bin/…) is found in the project, not on PATH', async (t) => {
  const { root } = project(t);
  const saved = process.env.PATH;
  t.after(() => { process.env.PATH = saved; });
  process.env.PATH = tempDir(t, 'rms-plugin-empty-');
  mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true });
  const shim = join(root, 'node_modules', '.bin', 'roo-modes-server');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
  chmodSync(shim, 0o755);
  const hooks = await loadPlugin(root, 'local.js', undefined, ['${CLAUDE_PROJECT_DIR}/node_modules/.bin/roo-modes-server']);
  await hooks['chat.params']({ sessionID: 's1', agent: 'docs-writer' });
  assert.equal(await outcome(hooks, 'write', { filePath: 'docs/new.md', content: 'x' }), undefined);
  assert.match((await outcome(hooks, 'write', { filePath: 'src/new.ts', content: 'x' }))!, /\^docs\//);
});
