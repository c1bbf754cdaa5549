import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAddToMcpConfig, type AddToMcpConfigIo } from '../../src/cli/add-to-mcp-config.js';
import { JSONC, JsonSyntaxError, parseJson, STRICT_JSON } from '../../src/jsonc/read.js';

const NODE = '/opt/node/bin/node';
const MAIN = '/opt/roo-modes-server/dist/main.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'add-mcp-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function add(argv: string[], extra: Partial<AddToMcpConfigIo> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runAddToMcpConfig(argv, {
    out: (t) => { out += t; },
    err: (t) => { err += t; },
    env: {},
    selfCommand: [NODE, MAIN],
    entryCommand: [NODE, MAIN],
    ...extra,
  });
  return { code, out, err };
}

const backups = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((n) => n.includes('.bak-'));

test('creates a missing VS Code project file and its folder with a stdio entry that names no path of this machine', async (t) => {
  const project = await tempDir(t);
  const r = await add(['--client', 'vscode', '--project-root', project]);
  assert.equal(r.code, 0, r.err);
  const file = join(project, '.vscode', 'mcp.json');
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), {
    servers: { 'roo-modes': { type: 'stdio', command: 'roo-modes-server', args: ['--project-root', '${workspaceFolder}'] } },
  });
  assert.match(r.out, /^created: "roo-modes" in .*\.vscode\/mcp\.json/);
  assert.doesNotMatch(await readFile(file, 'utf8'), /npx/);
  assert.deepEqual(await backups(join(project, '.vscode')), []);
});

test('replacing a project\'s config keeps the old one in the project\'s .roo/backups/, not beside it', async (t) => {
  const project = await tempDir(t);
  const first = await add(['--client', 'cursor', '--project-root', project]);
  assert.equal(first.code, 0, first.err);
  const file = join(project, '.cursor', 'mcp.json');
  const before = (await readFile(file, 'utf8')).replace('roo-modes-server', 'old-command');
  await writeFile(file, before);
  const r = await add(['--client', 'cursor', '--project-root', project]);
  assert.equal(r.code, 0, r.err);
  const kept = /previous version kept as (\S+)\)/.exec(r.out)?.[1];
  assert.match(kept ?? '', new RegExp(`^${join(project, '.roo', 'backups').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\d{8}T\\d{6}Z-config-cursor-mcp-json/mcp\\.json$`), r.out);
  assert.equal(await readFile(kept!, 'utf8'), before);
  assert.deepEqual(await backups(join(project, '.cursor')), [], 'nothing beside the file');
  assert.deepEqual(await readdir(project), ['.cursor', '.roo'], 'one folder to ignore');
});

test('a shared project file names folders relative to the project or home, and refuses one it cannot name', async (t) => {
  const project = await tempDir(t);
  const home = await tempDir(t);
  const env = { HOME: home };
  const claude = await add(['--client', 'claude-code', '--project-root', project, '--sessions-dir', join(project, 'var', 'sessions')], { env });
  assert.equal(claude.code, 0, claude.err);
  assert.deepEqual(JSON.parse(await readFile(join(project, '.mcp.json'), 'utf8')).mcpServers['roo-modes'],
    { type: 'stdio', command: 'roo-modes-server', args: ['--sessions-dir', 'var/sessions'] });
  const cursor = await add(['--client', 'cursor', '--project-root', project, '--sessions-dir', join(home, 'rms')], { env });
  assert.equal(cursor.code, 0, cursor.err);
  assert.deepEqual(JSON.parse(await readFile(join(project, '.cursor', 'mcp.json'), 'utf8')).mcpServers['roo-modes'].args, ['--sessions-dir', '~/rms']);
  const elsewhere = await add(['--client', 'roo', '--project-root', project, '--sessions-dir', '/var/lib/rms'], { env });
  assert.equal(elsewhere.code, 2);
  assert.match(elsewhere.err, /--sessions-dir \/var\/lib\/rms is outside the project and the home folder, so the shared .*\.roo\/mcp\.json cannot name it; use --global or --file/);
  // A per-user file keeps this installation's absolute paths, which is what it is for.
  const global = await add(['--client', 'claude-code', '--global', '--project-root', project], { env });
  assert.equal(global.code, 0, global.err);
  assert.deepEqual(JSON.parse(await readFile(join(home, '.claude.json'), 'utf8')).mcpServers['roo-modes'],
    { type: 'stdio', command: NODE, args: [MAIN, '--project-root', project] });
});

test('adds to an existing Claude config, keeping other servers, other keys and the old file as a backup', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'claude_desktop_config.json');
  const before = JSON.stringify({ globalShortcut: 'Ctrl+Space', mcpServers: { github: { command: 'gh-mcp', env: { TOKEN: 'x' } } } }, null, 2) + '\n';
  await writeFile(file, before);
  const r = await add(['--client', 'claude', '--file', file]);
  assert.equal(r.code, 0, r.err);
  const after = await readFile(file, 'utf8');
  assert.deepEqual(JSON.parse(after), {
    globalShortcut: 'Ctrl+Space',
    mcpServers: { github: { command: 'gh-mcp', env: { TOKEN: 'x' } }, 'roo-modes': { command: NODE, args: [MAIN] } },
  });
  const [backup] = await backups(dir);
  assert.ok(backup !== undefined, 'a backup was written');
  assert.equal(await readFile(join(dir, backup), 'utf8'), before);
  assert.match(r.out, /^added: "roo-modes" in .*previous version kept as .*\.bak-/);
});

test('updates a stale entry in place and leaves the rest of the file byte for byte', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'mcp.json');
  const head = '{\n  "mcpServers": {\n    "roo-modes": ';
  const tail = ',\n    "other": { "command": "other-server" }\n  }\n}\n';
  await writeFile(file, `${head}{ "command": "npx", "args": ["roo-modes-server"] }${tail}`);
  const r = await add(['--client', 'cursor', '--file', file]);
  assert.equal(r.code, 0, r.err);
  const after = await readFile(file, 'utf8');
  assert.ok(after.startsWith(head) && after.endsWith(tail), after);
  assert.deepEqual(JSON.parse(after).mcpServers['roo-modes'], { command: NODE, args: [MAIN] });
  assert.match(r.out, /^updated:/);
});

test('reports an entry that is already current as unchanged and writes nothing', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'mcp.json');
  assert.equal((await add(['--client', 'roo', '--file', file])).code, 0);
  const again = await add(['--client', 'roo', '--file', file]);
  assert.equal(again.code, 0);
  assert.match(again.out, /^unchanged/);
  assert.deepEqual(await backups(dir), []);
});

test('keeps every comment and trailing comma of a VS Code mcp.json it adds to', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'mcp.json');
  const before = [
    '// workspace MCP servers',
    '{',
    '  /* inputs first */',
    '  "inputs": [],',
    '  "servers": {',
    '    "github": { "type": "stdio", "command": "gh-mcp" }, // keep me',
    '    // a note after the last server',
    '  },',
    '}',
    '',
  ].join('\n');
  await writeFile(file, before);
  const r = await add(['--client', 'vscode', '--file', file]);
  assert.equal(r.code, 0, r.err);
  const after = await readFile(file, 'utf8');
  for (const comment of ['// workspace MCP servers', '/* inputs first */', '// keep me', '// a note after the last server']) {
    assert.ok(after.includes(comment), `kept ${comment}`);
  }
  const value = parseJson(after, JSONC).root.value as { servers: Record<string, unknown>; inputs: unknown[] };
  assert.deepEqual(Object.keys(value.servers), ['github', 'roo-modes']);
  assert.deepEqual(value.inputs, []);
});

test('updates an entry that holds comments, keeping the comments and the keys it does not set', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'mcp.json');
  const before = '{\n  "servers": {\n    "roo-modes": {\n      // pinned on purpose\n      "command": "old",\n      "env": {"A": "1"}, // mine\n    },\n    "x": {"command": "y"}\n  }\n}\n';
  await writeFile(file, before);
  const r = await add(['--client', 'vscode', '--file', file]);
  assert.equal(r.code, 0, r.err);
  const after = await readFile(file, 'utf8');
  for (const comment of ['// pinned on purpose', '// mine']) assert.ok(after.includes(comment), `kept ${comment}: ${after}`);
  assert.deepEqual(parseJson(after, JSONC).root.value, {
    servers: { 'roo-modes': { command: NODE, env: { A: '1' }, type: 'stdio', args: [MAIN] }, x: { command: 'y' } },
  });
  assert.match(r.out, /^updated:/);
});

test('refuses to replace a value that holds a comment, leaves the file untouched and prints the entry', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'mcp.json');
  const before = '{\n  "servers": {\n    "roo-modes": {\n      "command": "old",\n      "args": [/* pinned on purpose */ "x"]\n    }\n  }\n}\n';
  await writeFile(file, before);
  const r = await add(['--client', 'vscode', '--file', file]);
  assert.equal(r.code, 1);
  assert.match(r.err, /the "args" value of the existing "roo-modes" entry contains comments that replacing it would lose/);
  assert.match(r.err, /by hand:\n\s*"roo-modes": \{/);
  assert.equal(await readFile(file, 'utf8'), before);
  assert.deepEqual(await backups(dir), []);
});

test('keeps the other keys of an existing entry (env, disabled, alwaysAllow) in a strict JSON file', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'mcp.json');
  const before = '{"mcpServers":{"roo-modes":{"command":"old","env":{"A":"1"},"disabled":false,"alwaysAllow":["x"]},"other":{"command":"o"}}}\n';
  await writeFile(file, before);
  const expected = {
    mcpServers: { 'roo-modes': { command: NODE, env: { A: '1' }, disabled: false, alwaysAllow: ['x'], args: [MAIN] }, other: { command: 'o' } },
  };
  const dry = await add(['--client', 'roo', '--file', file, '--dry-run']);
  assert.equal(dry.code, 0, dry.err);
  assert.deepEqual(JSON.parse(dry.out), expected);
  assert.equal(await readFile(file, 'utf8'), before);
  const r = await add(['--client', 'roo', '--file', file]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), expected);
  assert.match((await add(['--client', 'roo', '--file', file])).out, /^unchanged/);
});

test('keeps an existing entry\'s own order and values when only args change, in a JSONC file', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'mcp.json');
  const before = [
    '{',
    '  "servers": {',
    '    "roo-modes": {',
    '      "type": "stdio",',
    `      "command": "${NODE}",`,
    '      "args": ["old.js"],',
    '      "env": { "ROO_MODES_LOG_LEVEL": "debug" }, // loud while testing',
    '      "envFile": "${workspaceFolder}/.env",',
    '    },',
    '  },',
    '}',
    '',
  ].join('\n');
  await writeFile(file, before);
  const r = await add(['--client', 'vscode', '--file', file]);
  assert.equal(r.code, 0, r.err);
  const after = await readFile(file, 'utf8');
  assert.equal(after, before.replace('["old.js"]', `[ "${MAIN}" ]`));
});

test('writes through a symlinked config file: the real file is updated and the link stays a link', async (t) => {
  const dir = await tempDir(t);
  await mkdir(join(dir, 'dotfiles'));
  await mkdir(join(dir, 'project', '.roo'), { recursive: true });
  const real = join(dir, 'dotfiles', 'mcp.json');
  const link = join(dir, 'project', '.roo', 'mcp.json');
  await writeFile(real, '{"mcpServers": {"keep": {"command": "me"}}}\n');
  await symlink(join('..', '..', 'dotfiles', 'mcp.json'), link);
  const r = await add(['--client', 'roo', '--project-root', join(dir, 'project')]);
  assert.equal(r.code, 0, r.err);
  assert.ok((await lstat(link)).isSymbolicLink(), 'the link is still a link');
  assert.deepEqual(JSON.parse(await readFile(real, 'utf8')), { mcpServers: { keep: { command: 'me' }, 'roo-modes': { command: 'roo-modes-server', args: [] } } });
  assert.equal((await backups(join(dir, 'dotfiles'))).length, 1, 'the backup sits beside the real file');
  assert.deepEqual(await readdir(join(dir, 'project', '.roo')), ['mcp.json']);
});

test('refuses a symlink to a missing file rather than replacing the link', async (t) => {
  const dir = await tempDir(t);
  const link = join(dir, 'mcp.json');
  await symlink(join(dir, 'nowhere', 'mcp.json'), link);
  const r = await add(['--client', 'roo', '--file', link]);
  assert.equal(r.code, 1);
  assert.match(r.err, /is a symbolic link to a file that does not exist/);
  assert.ok((await lstat(link)).isSymbolicLink());
});

test('refuses comments in a strict-JSON client file, naming line and column', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'mcp.json');
  const before = '{\n  "mcpServers": {\n    // my servers\n    "a": {"command": "b"}\n  }\n}\n';
  await writeFile(file, before);
  const r = await add(['--client', 'cursor', '--file', file]);
  assert.equal(r.code, 1);
  assert.match(r.err, /line 3, column 5: comments are not allowed/);
  assert.match(r.err, /Cursor reads strict JSON/);
  assert.equal(await readFile(file, 'utf8'), before);
});

test('refuses invalid JSON, naming line and column, and changes nothing', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'claude_desktop_config.json');
  const before = '{\n  "mcpServers": {\n    "a": {"command": "b"}\n    "c": {}\n  }\n}\n';
  await writeFile(file, before);
  const r = await add(['--client', 'claude', '--file', file]);
  assert.equal(r.code, 1);
  assert.match(r.err, /not valid JSON at line 4, column 5: expected , or \}/);
  assert.equal(await readFile(file, 'utf8'), before);
  assert.deepEqual(await backups(dir), []);
});

test('refuses a read-only file (mode 0444) even when running as root, and changes nothing', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'mcp.json');
  const before = '{"mcpServers": {"keep": {"command": "me"}}}\n';
  await writeFile(file, before);
  await chmod(file, 0o444);
  const r = await add(['--client', 'roo', '--file', file]);
  assert.equal(r.code, 1);
  assert.match(r.err, /is read-only/);
  assert.equal(await readFile(file, 'utf8'), before);
  assert.equal((await stat(file)).mode & 0o777, 0o444);
  assert.deepEqual(await backups(dir), []);
});

test('reports a target that is a directory instead of a file', async (t) => {
  const dir = await tempDir(t);
  const target = join(dir, 'mcp.json');
  await mkdir(target);
  const r = await add(['--client', 'roo', '--file', target]);
  assert.equal(r.code, 1);
  assert.match(r.err, /exists but is not a regular file/);
});

test('reports a folder that cannot be created (a file stands in its place) and leaves that file alone', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, '.cursor'), 'not a folder');
  const r = await add(['--client', 'cursor', '--project-root', dir]);
  assert.equal(r.code, 1);
  assert.match(r.err, /cannot use .*\.cursor\/mcp\.json: ENOTDIR/);
  assert.equal(await readFile(join(dir, '.cursor'), 'utf8'), 'not a folder');
});

test('reports a failed write, keeps the old file whole and leaves no temp or backup file behind', async (t) => {
  // A name this long still fits the file system, but its backup and temp names do not: the
  // write fails for real, even as root, after the file has been read and edited in memory.
  const dir = await tempDir(t);
  const file = join(dir, `${'m'.repeat(240)}.json`);
  const before = '{"mcpServers": {"keep": {"command": "me"}}}\n';
  await writeFile(file, before);
  const r = await add(['--client', 'roo', '--file', file]);
  assert.equal(r.code, 1);
  assert.match(r.err, /cannot write .*ENAMETOOLONG/);
  assert.match(r.err, /The file was not changed/);
  assert.equal(await readFile(file, 'utf8'), before);
  assert.deepEqual(await readdir(dir), [`${'m'.repeat(240)}.json`]);
});

test('prints the resulting file with --dry-run and writes nothing', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'mcp.json');
  const before = '{"mcpServers": {}}';
  await writeFile(file, before);
  const r = await add(['--client', 'roo', '--file', file, '--dry-run', '--name', 'modes']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), { mcpServers: { modes: { command: NODE, args: [MAIN] } } });
  assert.match(r.err, /dry run: would add "modes"/);
  assert.equal(await readFile(file, 'utf8'), before);
});

test('finds each client\'s standard file for the OS', async () => {
  const cases: Array<[string[], NodeJS.Platform, NodeJS.ProcessEnv, string]> = [
    [['--client', 'claude'], 'linux', { HOME: '/home/u' }, '/home/u/.config/Claude/claude_desktop_config.json'],
    [['--client', 'claude'], 'darwin', { HOME: '/Users/u' }, '/Users/u/Library/Application Support/Claude/claude_desktop_config.json'],
    [['--client', 'claude'], 'win32', { USERPROFILE: 'C:\\Users\\u', APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json'],
    [['--client', 'roo', '--global'], 'linux', { HOME: '/home/u' }, '/home/u/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json'],
    [['--client', 'roo'], 'linux', { HOME: '/home/u' }, '/work/proj/.roo/mcp.json'],
    [['--client', 'cursor'], 'linux', { HOME: '/home/u' }, '/work/proj/.cursor/mcp.json'],
    [['--client', 'vscode'], 'linux', { HOME: '/home/u' }, '/work/proj/.vscode/mcp.json'],
  ];
  for (const [argv, platform, env, expected] of cases) {
    // The standard paths do not exist here, so a dry run shows the location without touching anything.
    const r = await add([...argv, '--dry-run'], { platform, env, cwd: platform === 'win32' ? 'C:\\work\\proj' : '/work/proj' });
    assert.equal(r.code, 0, `${argv.join(' ')} on ${platform}: ${r.err}`);
    assert.ok(r.err.includes(` in ${expected};`), `${argv.join(' ')} on ${platform}: ${r.err}`);
  }
});

test('exits 2 on usage errors', async () => {
  assert.equal((await add([])).code, 2);
  assert.equal((await add(['--client', 'emacs'])).code, 2);
  assert.equal((await add(['--client', 'roo', '--bogus'])).code, 2);
});

test('jsonc: reports the line and column of a syntax error and keeps strict JSON strict', () => {
  assert.throws(() => parseJson('{\n  "a": 1,\n}', STRICT_JSON), (e: unknown) => e instanceof JsonSyntaxError && e.line === 3 && e.column === 1);
  assert.deepEqual(parseJson('{\n  "a": [1, 2,], // c\n}', JSONC).root.value, { a: [1, 2] });
  assert.throws(() => parseJson('{"a": 01}', STRICT_JSON), JsonSyntaxError);
  assert.throws(() => parseJson('{"a": "x\ty"}', STRICT_JSON), JsonSyntaxError);
});
