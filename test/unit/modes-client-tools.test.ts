import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinModes } from '../../src/modes/builtin.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkTool, compileMode, type CompiledMode } from '../../src/modes/permissions.js';
import { decideToolUse } from '../../src/modes/decide-tool-use.js';
import { CLIENT_TOOLS, clientTool, type ClientGroup, type ClientName } from '../../src/modes/client-tools.js';
import { ALWAYS_AVAILABLE_TOOLS, groupOfTool } from '../../src/modes/tool-groups.js';

const ctx = { projectRoot: mkdtempSync(join(tmpdir(), 'rms-client-tools-')), confineToProjectRoot: true };
after(() => rmSync(ctx.projectRoot, { recursive: true, force: true }));
const builtins = new Map(builtinModes().map((m) => [m.slug, compileMode(m)]));
const mode = (slug: string): CompiledMode => builtins.get(slug)!;

test('the client tool table puts no name in two groups and never contradicts Roo’s own table', () => {
  const seen = new Map<string, ClientGroup>();
  for (const client of Object.keys(CLIENT_TOOLS) as ClientName[]) {
    for (const [group, names] of Object.entries(CLIENT_TOOLS[client]) as [ClientGroup, string[]][]) {
      for (const name of names) {
        const before = seen.get(name);
        assert.ok(before === undefined || before === group, `${name} is in ${before} and ${group}`);
        seen.set(name, group);
        const roo = groupOfTool(name);
        if (roo !== undefined) assert.equal(roo, group, `${name}: Roo says ${roo}, the client table ${group}`);
        if (ALWAYS_AVAILABLE_TOOLS.includes(name)) assert.equal(group, 'always', name);
      }
    }
  }
  assert.deepEqual(clientTool('grep'), { group: 'read', clients: ['opencode', 'cursor'] });
});

test('Claude Code names map to Roo groups and keep the mode’s file restriction', () => {
  const architect = mode('architect');
  const ok = decideToolUse(architect, 'Edit', { file_path: 'docs/plan.md' }, ctx);
  assert.equal(ok.allowed, true);
  assert.equal(ok.group, 'edit');
  // Cursor's preToolUse hook names its edit tool Edit too.
  assert.deepEqual(ok.client, { group: 'edit', clients: ['claude-code', 'cursor'] });
  const refused = decideToolUse(architect, 'Write', { file_path: 'src/main.ts' }, ctx);
  assert.equal(refused.allowed, false);
  assert.equal(refused.error, 'file');
  assert.match(refused.reason, /\\\.md\$/);
  const bash = checkTool(architect, 'Bash');
  assert.equal(bash.allowed, false);
  assert.equal(bash.group, 'command');
  assert.equal(bash.error, 'tool');
  assert.equal(checkTool(mode('orchestrator'), 'Task').group, 'always');
  assert.equal(checkTool(mode('ask'), 'mcp__github__create_issue').group, 'mcp');
});

test('VS Code tool sets, set/tool names, OpenCode and Cursor names land in their groups', () => {
  const ask = mode('ask');
  const cases: [string, string, boolean][] = [
    ['read', 'read', true], ['search/codebase', 'read', true], ['edit/editFiles', 'edit', false],
    ['execute', 'command', false], ['web/fetch', 'browser', true], ['agent', 'always', true],
    ['glob', 'read', true], ['patch', 'edit', false], ['bash', 'command', false], ['todowrite', 'always', true],
    ['run_terminal_cmd', 'command', false], ['list_dir', 'read', true],
  ];
  for (const [name, group, allowed] of cases) {
    const d = checkTool(ask, name);
    assert.equal(d.group, group, name);
    assert.equal(d.allowed, allowed, name);
  }
});

test('an unknown name is "unknown tool" with the closest known names, not a restriction of the mode', () => {
  const d = checkTool(mode('code'), 'Frobnicate');
  assert.equal(d.allowed, false);
  assert.equal(d.group, null);
  assert.equal(d.error, 'unknown');
  assert.match(d.reason, /^Unknown tool "Frobnicate": neither Roo nor Claude Code, VS Code, OpenCode\/Kilo or Cursor has a tool by this name\./);
  assert.equal(d.client, undefined);
  // A typo gets the nearest names; the answer stays short instead of listing every agent's tools.
  const typo = checkTool(mode('code'), 'WebFetc');
  assert.match(typo.reason, /Closest known names: WebFetch\b/);
  assert.match(checkTool(mode('code'), 'exec_command').reason, /Closest known names: .*execute_command/);
  for (const name of ['Frobnicate', 'WebFetc', 'x'.repeat(500), 'run_in_terminl']) {
    assert.ok(checkTool(mode('code'), name).reason.length < 400 + name.length, name);
  }
});

test('current Claude Code names map, and the old ones are still understood but never suggested', () => {
  const cases: [string, string][] = [
    ['LSP', 'read'], ['NotebookEdit', 'edit'], ['PowerShell', 'command'], ['Agent', 'always'], ['TaskCreate', 'always'],
    ['LS', 'read'], ['MultiEdit', 'edit'], ['Task', 'always'], ['NotebookRead', 'read'], ['KillShell', 'command'],
  ];
  for (const [name, group] of cases) assert.equal(clientTool(name)?.group, group, name);
  assert.equal(checkTool(mode('ask'), 'PowerShell').allowed, false);
  assert.equal(checkTool(mode('ask'), 'LSP').allowed, true);
  assert.doesNotMatch(checkTool(mode('code'), 'MultiEdt').reason, /MultiEdit/);
  assert.doesNotMatch(checkTool(mode('code'), 'LSX').reason, /\bLS\b/);
});

test('every tool name an export writes is one validate_tool_use maps back to the same group', async () => {
  const { CLAUDE_TOOLS } = await import('../../src/export/claude-code.js');
  const { VSCODE_TOOLS } = await import('../../src/export/vscode.js');
  const { OPENCODE_PERMISSIONS } = await import('../../src/export/opencode.js');
  for (const table of [CLAUDE_TOOLS, VSCODE_TOOLS, OPENCODE_PERMISSIONS]) {
    for (const [group, names] of Object.entries(table) as [string, readonly string[]][]) {
      // Zoo's web group is written with the browser's names, which pass either group (see the next test).
      for (const name of names) assert.equal(groupOfTool(name) ?? clientTool(name)?.group, group === 'web' ? 'browser' : group, name);
    }
  }
});

test('another agent’s web tools pass a mode that has Zoo’s web group but not the browser group', () => {
  const researcher = compileMode({ slug: 'researcher', name: 'Researcher', roleDefinition: 'Reads the web.', groups: ['read', 'web'], source: 'project' });
  for (const name of ['WebFetch', 'webfetch', 'web/fetch']) {
    const d = checkTool(researcher, name);
    assert.equal(d.allowed, true, name);
    assert.equal(d.group, 'web', name);
  }
  assert.equal(checkTool(mode('orchestrator'), 'WebFetch').allowed, false);
  assert.equal(checkTool(mode('code'), 'WebFetch').group, 'browser');
});
