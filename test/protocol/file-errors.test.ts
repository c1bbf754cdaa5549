// A project the server may not write (issue 35 §6): create_mode and orchestrator_mode_create over
// stdio answer -32004 naming the file and the OS reason, not -32603; import-mode and export-mode
// --out print one line and exit 1, no stack trace and no temp file name.
//
// How the folder is made unwritable: chmod 0555. Root ignores permission bits, so when the tests
// run as root the server and the CLI are started as the unprivileged uid/gid 65534 ("nobody"),
// for whom the bits hold. Where that user cannot even read the build (a checkout under a private
// home), the test is skipped with the reason; tests/unit/files-write-errors.test.ts still covers
// the mapping and a refusal root cannot bypass (a file in the path).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../dist/main.cjs', import.meta.url));
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const who = asRoot ? { uid: NOBODY, gid: NOBODY } : {};

/** Why this machine cannot run the test, or false. */
function cannotRun(): string | false {
  if (process.platform === 'win32') return 'POSIX permissions only';
  if (!asRoot) return false;
  const probe = spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(BIN)})`], { ...who, cwd: '/' });
  return probe.status === 0 ? false : `uid ${NOBODY} cannot read ${BIN}`;
}
const skip = cannotRun();

const MODES = 'customModes:\n  - slug: helper\n    name: Helper\n    roleDefinition: You help.\n    groups: [read]\n';

/** A project folder holding a .roomodes, made read-only for the user the commands run as; and a writable home. */
function setUp(t: { after(fn: () => void): void }): { project: string; home: string; base: string } {
  const base = mkdtempSync(join(tmpdir(), 'rms-unwritable-'));
  chmodSync(base, 0o755);
  const project = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(project);
  mkdirSync(home, { mode: 0o777 });
  chmodSync(home, 0o777);
  writeFileSync(join(project, '.roomodes'), MODES);
  chmodSync(project, 0o555);
  t.after(() => { chmodSync(project, 0o755); rmSync(base, { recursive: true, force: true }); });
  return { project, home, base };
}

function run(args: string[], home: string, input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      ...who, cwd: home, env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '', ROO_CONFIG_DIR: join(home, '.roo-code') }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => { stdout += s; });
    child.stderr.setEncoding('utf8').on('data', (s: string) => { stderr += s; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const line = (msg: unknown): string => `${JSON.stringify(msg)}\n`;

test('create_mode and orchestrator_mode_create in an unwritable project answer -32004 naming the file and the OS reason', { skip }, async (t) => {
  const { project, home } = setUp(t);
  // stdin ends after the requests: the server answers them all, then exits.
  const input = [
    line({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    line({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_mode', arguments: { slug: 'writer', name: 'Writer', role_definition: 'You write.', groups: [{ group: 'read' }] } } }),
    line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'orchestrator_mode_create', arguments: { mode_name: 'dev' } } }),
  ].join('');
  const r = await run(['--project-root', project], home, input);
  const answers = new Map(r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; error?: { code: number; message: string; data: Record<string, unknown> } }).map((m) => [m.id, m]));
  const created = answers.get(1)?.error;
  assert.equal(created?.code, -32004, r.stdout);
  assert.equal(created.message, `cannot write ${join(project, '.roomodes')}: permission denied (EACCES)`);
  assert.deepEqual([created.data.error_type, created.data.path, created.data.os_error], ['file_not_writable', join(project, '.roomodes'), 'EACCES']);
  const set = answers.get(2)?.error;
  assert.equal(set?.code, -32004, r.stdout);
  assert.match(set.message, new RegExp(`^cannot (?:write|create the folder) ${project.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\S+: permission denied \\(EACCES\\)$`));
  assert.equal(set.data.os_error, 'EACCES');
  assert.doesNotMatch(r.stdout, /\.tmp\b/, 'no temp file is named');
  assert.doesNotMatch(r.stderr, /internal error/i, 'nothing was logged as a bug');
});

test('import-mode, export-mode --out, export and add-to-mcp-config into an unwritable folder say which file and why, exit 1, no stack trace', { skip }, async (t) => {
  const { project, home, base } = setUp(t);
  const exported = await run(['export-mode', 'helper', '--project-root', project], home);
  assert.equal(exported.code, 0, exported.stderr);
  const file = join(base, 'helper.json');
  writeFileSync(file, exported.stdout.replace(/"slug": "helper"/, '"slug": "helper-two"'));

  const imported = await run(['import-mode', file, '--project-root', project], home);
  assert.equal(imported.code, 1);
  assert.equal(imported.stderr, `roo-modes-server import-mode: cannot write ${join(project, '.roomodes')}: permission denied (EACCES)\n`);

  const out = join(project, 'helper-out.json');
  const wrote = await run(['export-mode', 'helper', '--project-root', project, '--out', out], home);
  assert.equal(wrote.code, 1);
  assert.equal(wrote.stderr, `roo-modes-server export-mode: cannot write ${out}: permission denied (EACCES)\n`);
  const exported2 = await run(['export', '--to', 'claude-code', '--project-root', project], home);
  assert.equal(exported2.code, 1);
  assert.match(exported2.stdout, new RegExp(`^  failed: cannot create the folder ${join(project, '.claude', 'agents').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: permission denied \\(EACCES\\)$`, 'm'));
  const added = await run(['add-to-mcp-config', '--client', 'claude-code', '--project-root', project], home);
  assert.equal(added.code, 1);
  assert.equal(added.stderr.split('\n')[0], `roo-modes-server add-to-mcp-config: cannot write ${join(project, '.mcp.json')}: permission denied (EACCES)`);
  for (const r of [imported, wrote, exported2, added]) {
    assert.doesNotMatch(r.stderr + r.stdout, /^\s+at /m, 'no stack trace');
    assert.doesNotMatch(r.stderr + r.stdout, /\.tmp\b/, 'no temp file named');
  }
  assert.equal(existsSync(out), false);
  assert.deepEqual(readdirSync(project), ['.roomodes'], 'nothing left in the project');
});
