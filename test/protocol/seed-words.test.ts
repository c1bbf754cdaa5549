// The seed's words where users expect them, through the built server and CLI: seed 003's field
// names on mode-set results (checked against each outputSchema), backup pruning and listing, and
// add-to-mcp-config for Claude Code with --env and --sessions-dir, refusing a missing project.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileSchema } from '../../src/schema/validate.js';
import { runCli } from './cli-run.js';
import { MAIN, startServer, tempDir, type ServerProcess } from './harness.js';

type Ctx = Parameters<typeof startServer>[0];

async function served(t: Ctx): Promise<{ s: ServerProcess; root: string; tool: (name: string, args?: Record<string, unknown>) => Promise<any> }> {
  const root = tempDir(t, 'rms-seed-');
  const s = startServer(t, { args: ['--project-root', root] });
  await s.initialize('2025-11-25');
  const tools = (await s.call('list', 'tools/list')).result.tools as { name: string; outputSchema?: Record<string, unknown> }[];
  const checks = new Map(tools.map((x) => [x.name, compileSchema(x.outputSchema ?? {})]));
  let n = 0;
  const tool = async (name: string, args: Record<string, unknown> = {}): Promise<any> => {
    const res = await s.tool(`t${++n}`, name, args);
    assert.ok(res.result, `${name} failed: ${JSON.stringify(res.error)}`);
    assert.deepEqual(res.result.structuredContent, res.result.metadata);
    assert.deepEqual(checks.get(name)!(res.result.structuredContent, 'structuredContent'), [], `${name} matches its outputSchema`);
    return res.result.structuredContent;
  };
  return { s, root, tool };
}

test('mode-set results carry seed 003\'s field names beside ours', async (t) => {
  const { tool } = await served(t);
  const created = await tool('orchestrator_mode_create', { mode_name: 'team' });
  assert.equal(created.success, true);
  assert.equal(created.mode_created, 'team.yaml');
  assert.equal(created.validation_status, 'valid');

  const validated = await tool('orchestrator_mode_validate', { mode_file: 'team.yaml' });
  assert.equal(validated.success, true);
  assert.equal(validated.validation_status, 'valid');
  assert.equal(validated.fallback_mode, '.roomodes');

  const selected = await tool('orchestrator_mode_select', { mode_file: 'team.yaml' });
  assert.equal(selected.backup_created, selected.backup_file, 'the existing set was backed up before selecting');
  assert.equal(selected.backup_path, selected.backup_location);
  assert.equal(selected.fallback_mode, '.roomodes');

  const backup = await tool('orchestrator_mode_backup', { backup_name: 'manual' });
  assert.equal(backup.backup_created, backup.backup_file);
  assert.match(backup.backup_created, /^mode_backup_\d{8}_\d{6}_manual\.yaml$/);
  assert.equal(backup.backup_path, backup.backup_location);
  assert.equal(backup.backup_bytes, statSync(backup.backup_location).size);
  assert.match(backup.backup_size, /^\d+(\.\d)?(B|KB)$/, 'a size for people, as the seed writes it');

  const restored = await tool('orchestrator_mode_restore', { backup_file: backup.backup_file });
  assert.equal(restored.success, true);
  assert.equal(restored.backup_source, backup.backup_file);
  assert.ok(Math.abs(Date.parse(restored.restored_at) - Date.now()) < 60_000, 'restored_at is now');
  assert.equal(restored.validation_status, 'valid');
  assert.equal(restored.backup_created, undefined, 'nothing differed, so no safety backup');
  assert.equal(restored.backup_path, undefined);

  const listed = await tool('orchestrator_mode_list');
  assert.equal(listed.success, true);
});

test('a failed mode-set call names the set that stays in force as fallback_mode', async (t) => {
  const { s, tool } = await served(t);
  const none = await s.tool('e1', 'orchestrator_mode_select', { mode_file: 'missing.yaml', auto_copy_if_missing: false });
  assert.equal(none.error.code, -32004);
  assert.equal(none.error.data.fallback_mode, '.roomodes');
  await tool('orchestrator_mode_create', { mode_name: 'team' });
  await tool('orchestrator_mode_select', { mode_file: 'team.yaml' });
  const bad = await s.tool('e2', 'orchestrator_mode_restore', { backup_file: 'mode_backup_19990101_000000.yaml' });
  assert.equal(bad.error.code, -32004);
  assert.equal(bad.error.data.fallback_mode, 'team.yaml');
  assert.equal(bad.error.data.error_type, 'not_found', 'the details are kept');
});

test('orchestrator_mode_backup keep: N removes the older backups; orchestrator_mode_list lists them newest first', async (t) => {
  const { root, tool } = await served(t);
  await tool('orchestrator_mode_create', { mode_name: 'team' });
  const backups = join(root, '.task_orchestrator', 'backups');
  mkdirSync(backups, { recursive: true });
  // Older backups (by their names) and a file of the user's own that pruning must leave alone.
  for (const stamp of ['20240101_000000', '20240102_000000', '20240103_000000']) writeFileSync(join(backups, `mode_backup_${stamp}.yaml`), 'x: 1\n');
  writeFileSync(join(backups, 'my-notes.yaml'), 'mine: true\n');
  utimesSync(join(backups, 'my-notes.yaml'), new Date('2023-06-01T00:00:00Z'), new Date('2023-06-01T00:00:00Z'));

  const listed = await tool('orchestrator_mode_list');
  assert.deepEqual(listed.backups.map((b: { file: string }) => b.file).filter((f: string) => f.startsWith('mode_backup_2024')),
    ['mode_backup_20240103_000000.yaml', 'mode_backup_20240102_000000.yaml', 'mode_backup_20240101_000000.yaml']);
  assert.equal(listed.backups.find((b: { file: string }) => b.file === 'mode_backup_20240101_000000.yaml').created_at, '2024-01-01T00:00:00.000Z');
  assert.equal(listed.backup_directory, backups);

  const kept = await tool('orchestrator_mode_backup', { keep: 2 });
  assert.deepEqual(kept.pruned_backups, ['mode_backup_20240102_000000.yaml', 'mode_backup_20240101_000000.yaml']);
  assert.deepEqual(readdirSync(backups).sort(), [kept.backup_file, 'mode_backup_20240103_000000.yaml', 'my-notes.yaml'].sort());
  const after = await tool('orchestrator_mode_list');
  assert.equal(after.backups[0].file, kept.backup_file, 'the new backup is listed first');
  assert.equal(after.backups.at(-1).created_at, '2023-06-01T00:00:00.000Z', 'a file not named by us is dated by its modification time');
});

const NODE = process.execPath;

test('add-to-mcp-config --client claude-code writes a portable .mcp.json, or ~/.claude.json with --global, with --env and --sessions-dir', async (t) => {
  const home = tempDir(t, 'rms-home-');
  const project = tempDir(t, 'rms-proj-');
  const sessions = join(project, 'sessions');
  const r = await runCli(['add-to-mcp-config', '--client', 'claude-code', '--project-root', project,
    '--env', 'ROO_MODES_LOG_LEVEL=warning', '--env', 'EMPTY=', '--sessions-dir', sessions], { home, cwd: project });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')), {
    mcpServers: {
      'roo-modes': {
        // Shared with the team: the bin on PATH, the project as the client's folder, the sessions under it.
        type: 'stdio', command: 'roo-modes-server', args: ['--sessions-dir', 'sessions'],
        env: { ROO_MODES_LOG_LEVEL: 'warning', EMPTY: '' },
      },
    },
  });

  writeFileSync(join(home, '.claude.json'), JSON.stringify({ numStartups: 3, mcpServers: { other: { command: 'x' } } }));
  const g = await runCli(['add-to-mcp-config', '--client', 'claude-code', '--global'], { home, cwd: project });
  assert.equal(g.code, 0, g.stderr);
  const user = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8'));
  assert.equal(user.numStartups, 3, 'the rest of the file is kept');
  assert.deepEqual(user.mcpServers.other, { command: 'x' });
  assert.deepEqual(user.mcpServers['roo-modes'], { type: 'stdio', command: NODE, args: [MAIN] }); // the package's bin

  // A second run with --env adds to the entry's variables; the old ones stay.
  const more = await runCli(['add-to-mcp-config', '--client', 'claude-code', '--project-root', project, '--env', 'ROO_MODES_CONFIG=/etc/rms.json'], { home, cwd: project });
  assert.equal(more.code, 0, more.stderr);
  assert.deepEqual(JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')).mcpServers['roo-modes'].env,
    { ROO_MODES_LOG_LEVEL: 'warning', EMPTY: '', ROO_MODES_CONFIG: '/etc/rms.json' });

  const bad = await runCli(['add-to-mcp-config', '--client', 'claude-code', '--env', '1BAD=x'], { home, cwd: project });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--env expects KEY=VALUE/);
});

test('add-to-mcp-config refuses a --project-root that does not exist unless --force', async (t) => {
  const home = tempDir(t, 'rms-home-');
  const missing = join(tempDir(t), 'not-yet');
  const r = await runCli(['add-to-mcp-config', '--client', 'cursor', '--project-root', missing], { home });
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`project root ${missing} does not exist`));
  assert.equal(existsSync(join(missing, '.cursor', 'mcp.json')), false, 'nothing written');
  const forced = await runCli(['add-to-mcp-config', '--client', 'cursor', '--project-root', missing, '--force'], { home });
  assert.equal(forced.code, 0, forced.stderr);
  assert.ok(existsSync(join(missing, '.cursor', 'mcp.json')));
});
