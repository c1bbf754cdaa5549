// One-shot use through the built CLI: sessions kept on disk between `call` runs, the config file
// from ROO_MODES_CONFIG, the seed's example config, project-root checks, and Roo Code's global
// modes file found in an editor's storage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, type CliRun } from './cli-run.js';
import { startServer, tempDir } from './harness.js';

/** The seed's example configuration (seed 000 §7.1.1, its keys and values): some keys this server does not use. */
const SEED_CONFIG = {
  server: { name: 'roo-modes-server', version: '1.0.0', description: 'MCP server exposing Roo-Code mode system' },
  paths: { project_root: null, global_config_dir: '~/.roo-code' },
  sessions: { timeout: 3600, cleanup_interval: 300, persistence: { enabled: false, storage_path: '~/.roo-code/mcp_sessions' } },
  logging: { level: 'INFO', file: '~/.roo-code/mcp_modes_server.log', format: '%(asctime)s - %(name)s - %(levelname)s - %(message)s' },
};

const INIT = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n';
const LIST = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_modes","arguments":{}}}\n';

function oneLineExit2(r: CliRun, pattern: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, pattern);
  assert.equal(r.stderr.trimEnd().split('\n').length, 1, `one line: ${r.stderr}`);
  assert.equal(r.stdout, '');
}

test('serves with the seed example config: unused keys warned about once, the log folder made', async (t) => {
  const home = tempDir(t, 'rms-home-');
  const config = join(tempDir(t), 'mcp_modes_server_config.json');
  writeFileSync(config, JSON.stringify(SEED_CONFIG));
  // The seed's level (INFO) has no record for a quiet session; debug shows the records reach the file.
  const r = await runCli(['--config', config], { home, input: INIT + LIST, env: { ROO_MODES_LOG_LEVEL: 'debug' } });
  assert.equal(r.code, 0, r.stderr);
  const warnings = r.stderr.split('\n').filter((l) => /ignoring keys/.test(l));
  assert.equal(warnings.length, 1, r.stderr);
  assert.match(warnings[0]!, /: ignoring keys this server does not use: server\.name, server\.version, server\.description, logging\.format$/);
  const log = join(home, '.roo-code', 'mcp_modes_server.log');
  assert.ok(existsSync(log), 'the log file and its folder were created');
  assert.match(readFileSync(log, 'utf8'), /initialized with t/);
  const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(answers[1].result.structuredContent.count, 5);
});

test('still refuses a config key that looks like a typo, with the key meant', async (t) => {
  const config = join(tempDir(t), 'c.json');
  writeFileSync(config, JSON.stringify({ sessions: { timout: 60 } }));
  oneLineExit2(await runCli(['--config', config]), /unknown key sessions\.timout; did you mean sessions\.timeout\?/);
});

test('reads the config file named by ROO_MODES_CONFIG when --config is not given', async (t) => {
  const config = join(tempDir(t), 'from-env.json');
  writeFileSync(config, JSON.stringify({ server: { page_sise: 5 } }));
  oneLineExit2(await runCli([], { env: { ROO_MODES_CONFIG: config } }), /from-env\.json: unknown key server\.page_sise; did you mean server\.page_size\?/);
  const good = join(tempDir(t), 'good.json');
  const log = join(tempDir(t), 'logs', 'server.log');
  writeFileSync(good, JSON.stringify({ logging: { file: log, level: 'debug' } }));
  const r = await runCli([], { env: { ROO_MODES_CONFIG: good }, input: INIT });
  assert.equal(r.code, 0, r.stderr);
  assert.match(readFileSync(log, 'utf8'), /initialized/);
});

test('refuses a project root that does not exist or is not a directory, naming it on one line', async (t) => {
  const dir = tempDir(t);
  const missing = join(dir, 'no-such-project');
  const file = join(dir, 'a-file');
  writeFileSync(file, '');
  oneLineExit2(await runCli(['--project-root', missing]), new RegExp(`project root ${missing} does not exist`));
  oneLineExit2(await runCli([], { env: { ROO_PROJECT_ROOT: missing } }), new RegExp(`project root ${missing} does not exist`));
  oneLineExit2(await runCli(['--project-root', file]), new RegExp(`project root ${file} is not a directory`));
});

test('call keeps sessions between runs with --sessions-dir or ROO_MODES_SESSIONS_DIR', async (t) => {
  const project = tempDir(t);
  const sessions = join(tempDir(t), 'sessions');
  const created = await runCli(['call', 'create_task', '--arg', 'mode_slug=code', '--raw', '--sessions-dir', sessions], { cwd: project });
  assert.equal(created.code, 0, created.stderr);
  const id = JSON.parse(created.stdout).structuredContent.session_id as string;
  const info = await runCli(['call', 'get_task_info', '--arg', `session_id=${id}`, '--sessions-dir', sessions], { cwd: project });
  assert.equal(info.code, 0, info.stderr);
  assert.match(info.stdout, /Mode: 💻 Code \(code\)/);
  const viaEnv = await runCli(['call', 'get_task_info', '--arg', `session_id=${id}`], { cwd: project, env: { ROO_MODES_SESSIONS_DIR: sessions } });
  assert.equal(viaEnv.code, 0, viaEnv.stderr);
  // Without the folder the session is gone, and the message itself says why and what to do.
  const lost = await runCli(['call', 'get_task_info', '--arg', `session_id=${id}`], { cwd: project });
  assert.equal(lost.code, 1);
  assert.match(lost.stderr, /^error -32002: Session not found: "ses_[0-9a-f]{24}"\. Sessions live in the server process and end with it unless --sessions-dir or ROO_MODES_SESSIONS_DIR is set/m);
});

test('serve --sessions-dir turns persistence on at that folder', async (t) => {
  const sessions = join(tempDir(t), 'kept');
  const s = startServer(t, { args: ['--sessions-dir', sessions] });
  await s.initialize();
  const res = await s.tool(1, 'create_task', { mode_slug: 'ask' });
  const id = res.result.structuredContent.session_id as string;
  assert.ok(existsSync(join(sessions, `${id}.json`)), 'the session file is in the folder');
  await s.end();
});

/** Roo Code's own global modes file where the editors keep it, under a fake HOME. */
function editorModes(home: string, appDataParts: string[], editor: string, slug: string): string {
  const dir = join(home, ...appDataParts, editor, 'User', 'globalStorage', 'rooveterinaryinc.roo-cline', 'settings');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'custom_modes.yaml');
  writeFileSync(file, `customModes:\n  - slug: ${slug}\n    name: From ${editor}\n    roleDefinition: A mode Roo Code saved.\n    groups: [read]\n`);
  return file;
}

test('finds Roo Code\'s global modes file in an editor\'s storage, and says which file it used', async (t) => {
  const home = tempDir(t, 'rms-home-');
  const file = editorModes(home, ['.config'], 'Cursor', 'from-cursor');
  const modes = await runCli(['modes'], { home });
  assert.equal(modes.code, 0, modes.stderr);
  assert.match(modes.stdout, /^from-cursor\s+From Cursor\s+global\s+read\s+\S+custom_modes\.yaml$/m);
  assert.match(modes.stdout, new RegExp(`^Global modes file: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  const json = JSON.parse((await runCli(['modes', '--json'], { home })).stdout);
  assert.equal(json.global_modes_file, file);
  const checked = await runCli(['validate'], { home });
  assert.match(checked.stdout, /custom_modes\.yaml: ok, 1 mode/);

  const s = startServer(t, { env: { HOME: home, XDG_CONFIG_HOME: '' } });
  await s.initialize('2025-06-18');
  const listed = (await s.tool(1, 'list_modes')).result;
  assert.equal(listed.structuredContent.global_modes_file, file);
  assert.ok(listed.structuredContent.modes.some((m: { slug: string }) => m.slug === 'from-cursor'));
  assert.match(listed.content[0].text, /Global modes file: .*custom_modes\.yaml/);
  await s.end();
});

test('a modes file in the config folder wins over the editors\' storage', async (t) => {
  const home = tempDir(t, 'rms-home-');
  editorModes(home, ['.config'], 'Code', 'from-code');
  mkdirSync(join(home, '.roo-code'));
  writeFileSync(join(home, '.roo-code', 'modes.yaml'), 'customModes: []\n');
  const r = await runCli(['modes'], { home });
  assert.doesNotMatch(r.stdout, /from-code/);
  assert.match(r.stdout, /Global modes file: .*\.roo-code\/modes\.yaml/);
});
