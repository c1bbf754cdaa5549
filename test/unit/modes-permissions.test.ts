import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinModes } from '../../src/modes/builtin.js';
import { checkTool, compileMode, type CompiledMode, type PermissionDecision } from '../../src/modes/permissions.js';
import { decideToolUse } from '../../src/modes/decide-tool-use.js';
import { fakeFs } from './paths-fake-fs.js';
import { describeToolGroups } from '../../src/modes/describe.js';
import { ALWAYS_AVAILABLE_TOOLS, TOOL_GROUPS } from '../../src/modes/tool-groups.js';
import { TOOL_GROUP_NAMES, type Mode } from '../../src/modes/types.js';

const ctx = { projectRoot: '/work/project', confineToProjectRoot: true };
const builtins = new Map(builtinModes().map((m) => [m.slug, compileMode(m)]));
const mode = (slug: string): CompiledMode => builtins.get(slug)!;
const custom = (groups: Mode['groups']): CompiledMode =>
  compileMode({ slug: 'custom', name: 'Custom', roleDefinition: 'r', groups, source: 'project' });
/** The whole decision over an empty file system (every path is a file yet to be created). */
const decide = (m: CompiledMode, tool: string, args: { path?: unknown; file_path?: unknown }, c: typeof ctx | { projectRoot: null; confineToProjectRoot: boolean } = ctx): PermissionDecision =>
  decideToolUse(m, tool, args, c, fakeFs({ '/work': 'dir', '/work/project': 'dir' }));

test('every built-in mode allows exactly the tools of its groups', () => {
  for (const [slug, m] of builtins) {
    const groups = new Set(m.groups.map((g) => (typeof g === 'string' ? g : g[0])));
    for (const group of TOOL_GROUP_NAMES) {
      for (const tool of TOOL_GROUPS[group]) {
        const d = checkTool(m, tool);
        const expected = groups.has(group) || ALWAYS_AVAILABLE_TOOLS.includes(tool);
        assert.equal(d.allowed, expected, `${slug} ${tool}`);
        if (!expected) {
          assert.equal(d.error, 'tool');
          assert.equal(d.group, group);
          assert.match(d.reason, new RegExp(`"${group}" group`));
        }
      }
    }
  }
});

test('always-available tools pass in every mode, even one without groups', () => {
  const none = custom([]);
  for (const tool of ALWAYS_AVAILABLE_TOOLS) {
    const d = checkTool(none, tool);
    assert.deepEqual([d.allowed, d.group], [true, 'always'], tool);
  }
});

test('aliases resolve to their canonical tool', () => {
  const d = decide(mode('code'), 'write_file', { path: 'src/a.ts' }, ctx);
  assert.equal(d.allowed, true);
  assert.equal(d.group, 'edit');
  assert.match(d.reason, /alias of write_to_file/);
  assert.equal(checkTool(mode('ask'), 'temp_edit_file').allowed, false);
  assert.equal((decide(mode('architect'), 'write_file', { path: 'src/app.py' }, ctx)).error, 'file');
});

test('refuses an unknown tool as unknown, without listing every tool', () => {
  const d = checkTool(mode('ask'), 'delete_everything');
  assert.deepEqual([d.allowed, d.group, d.error], [false, null, 'unknown']);
  assert.match(d.reason, /Unknown tool "delete_everything"/);
  assert.doesNotMatch(d.reason, /attempt_completion/);
});

test('architect edits Markdown only, matching unanchored like Roo', () => {
  const architect = mode('architect');
  const ok = decide(architect, 'write_to_file', { path: 'design.md' }, ctx);
  assert.equal(ok.allowed, true);
  assert.deepEqual(ok.restriction, { fileRegex: '\\.md$', description: 'Markdown files only' });
  assert.equal((decide(architect, 'apply_diff', { path: 'docs/deep/plan.md' }, ctx)).allowed, true);
  const no = decide(architect, 'apply_diff', { path: 'src/app.py' }, ctx);
  assert.deepEqual([no.allowed, no.error, no.group], [false, 'file', 'edit']);
  assert.equal(no.reason, "Tool 'apply_diff' in mode '🏗️ Architect' can only edit files matching pattern: \\.md$ (Markdown files only). Got: src/app.py");
  assert.equal((decide(architect, 'read_file', { path: 'src/app.py' }, ctx)).allowed, true);
  assert.equal(checkTool(architect, 'write_to_file').allowed, true);
});

test('file_path is checked like path, and backslashes separate on Windows only', () => {
  const m = custom([['edit', { fileRegex: '^docs/.*\\.md$' }]]);
  const windows = fakeFs({ '/work': 'dir', '/work/project': 'dir' }, { platform: 'win32' });
  assert.equal((decideToolUse(m, 'write_to_file', { file_path: 'docs\\guide\\a.md' }, ctx, windows)).allowed, true);
  assert.equal((decideToolUse(m, 'write_to_file', { file_path: 'src\\a.md' }, ctx, windows)).allowed, false);
  // On POSIX the same text names one file at the project root, outside docs/.
  assert.equal((decide(m, 'write_to_file', { file_path: 'docs\\guide\\a.md' }, ctx)).allowed, false);
  assert.equal((decide(m, 'write_to_file', { file_path: 'docs/guide\\a.md' }, ctx)).allowed, true);
  assert.equal((decide(m, 'write_to_file', { path: 'docs/a.md', file_path: 'src/x.ts' }, ctx)).allowed, true);
});

test('a pattern refusal names the normalised path, or the real target a link leads to', () => {
  const m = custom([['edit', { fileRegex: '^docs/' }]]);
  const climbed = decide(m, 'write_to_file', { path: 'docs/../src/main.ts' });
  assert.deepEqual([climbed.allowed, climbed.error], [false, 'file']);
  assert.match(climbed.reason, /matching pattern: \^docs\/\. Got: docs\/\.\.\/src\/main\.ts \(that is, src\/main\.ts\)$/);
  const fs = fakeFs({ '/work': 'dir', '/work/project': 'dir', '/work/project/docs': '-> /work/project/src', '/work/project/src': 'dir' });
  const linked = decideToolUse(m, 'write_to_file', { path: 'docs/a.ts' }, ctx, fs);
  assert.equal(linked.allowed, false);
  assert.match(linked.reason, /Got: docs\/a\.ts, which leads to src\/a\.ts$/);
  assert.deepEqual(linked.restriction, { fileRegex: '^docs/' });
});

test('a path given to a tool that takes no file is not its concern; a file tool still has it confined', () => {
  for (const [slug, tool] of [['ask', 'attempt_completion'], ['code', 'execute_command'], ['code', 'mcp__github__create_issue']] as const) {
    const d = decide(mode(slug), tool, { path: '../x' });
    assert.deepEqual([d.allowed, d.error], [true, undefined], tool);
  }
  const read = decide(mode('ask'), 'read_file', { path: '../x' });
  assert.deepEqual([read.allowed, read.error, read.group], [false, 'file', 'read']);
});

test('refuses paths with control characters', () => {
  for (const path of ['a\u0000.md', 'a\n.md', 'x\u001b[2J.md', 'del\u007f.md']) {
    const d = decide(mode('code'), 'read_file', { path }, { ...ctx, confineToProjectRoot: false });
    assert.deepEqual([d.allowed, d.error], [false, 'file'], JSON.stringify(path));
    assert.match(d.reason, /control characters/);
  }
});

test('refuses a path that escapes the project root', () => {
  for (const path of ['../x', '/etc/passwd', 'src/../../x', 'C:\\Windows\\system.ini', '~/x']) {
    const d = decide(mode('code'), 'read_file', { path }, ctx);
    assert.deepEqual([d.allowed, d.error], [false, 'file'], path);
    assert.match(d.reason, /outside the project root/);
  }
  for (const path of ['src/../README.md', '/work/project/src/a.ts', './a', 'a/..']) {
    assert.equal((decide(mode('code'), 'read_file', { path }, ctx)).allowed, true, path);
  }
  assert.equal((decide(mode('code'), 'read_file', { path: '/etc/passwd' }, { ...ctx, confineToProjectRoot: false })).allowed, true);
  const relativeToCwd = decide(mode('code'), 'read_file', { path: '../x' }, { projectRoot: null, confineToProjectRoot: true });
  assert.equal(relativeToCwd.allowed, false);
  assert.match(relativeToCwd.reason, new RegExp(process.cwd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
});

test('refuses an overlong path', () => {
  const d = decide(mode('code'), 'read_file', { path: `a/${'b'.repeat(5000)}` }, ctx);
  assert.deepEqual([d.allowed, d.error], [false, 'file']);
  assert.match(d.reason, /longer than 4096/);
});

test('refuses a path that is not a string', () => {
  const d = decide(mode('code'), 'read_file', { path: 42 }, ctx);
  assert.deepEqual([d.allowed, d.error], [false, 'file']);
});

test('qualified MCP names belong to the mcp group and honour the allow-list with wildcards', () => {
  assert.equal(checkTool(mode('code'), 'mcp__github__create_issue').allowed, true);
  assert.equal(checkTool(mode('code'), 'mcp__github__create_issue').group, 'mcp');
  const o = checkTool(mode('orchestrator'), 'mcp__github__create_issue');
  assert.deepEqual([o.allowed, o.error, o.group], [false, 'tool', 'mcp']);
  const narrowed = custom([['mcp', { tools: ['mcp__github__*', 'mcp__fs__read_file'] }]]);
  assert.equal(checkTool(narrowed, 'mcp__github__create_issue').allowed, true);
  assert.equal(checkTool(narrowed, 'mcp__fs__read_file').allowed, true);
  const refused = checkTool(narrowed, 'mcp__fs__write_file');
  assert.deepEqual([refused.allowed, refused.error], [false, 'tool']);
  assert.match(refused.reason, /allow-list/);
  assert.equal(checkTool(narrowed, 'use_mcp_tool').allowed, true);
  assert.equal((decide(custom([['mcp', { tools: ['mcp__*'] }]]), 'mcp__any__thing', {}, ctx)).allowed, true);
  // Roo's own dynamic names (mcp_<server>_<tool>) belong to mcp too, but never pass an allow-list.
  assert.equal(checkTool(mode('code'), 'mcp_github_create_issue').allowed, true);
  assert.equal(checkTool(mode('orchestrator'), 'mcp_github_create_issue').allowed, false);
  assert.equal(checkTool(narrowed, 'mcp_github_create_issue').allowed, false);
  const malformed = checkTool(mode('code'), 'mcp__github');
  assert.deepEqual([malformed.allowed, malformed.error], [false, 'unknown']);
});

test('an unusable fileRegex refuses every edit, as in Roo', () => {
  const m = compileMode({ slug: 'x', name: 'X', roleDefinition: 'r', source: 'project', groups: [['edit', { fileRegex: '(a+)+' }]] });
  assert.equal(m.compiled.edit?.regex, null);
  assert.equal((decide(m, 'write_to_file', { path: 'aaa' }, ctx)).error, 'file');
});

test('regexes are compiled once per mode, not per check', () => {
  const m = mode('architect');
  const regex = m.compiled.edit!.regex;
  decide(m, 'write_to_file', { path: 'a.md' }, ctx);
  assert.equal(m.compiled.edit!.regex, regex);
  assert.equal(regex!.global, false);
});

test('describeToolGroups reports the seven groups in order with the edit restriction', () => {
  const rows = describeToolGroups(mode('architect'));
  assert.deepEqual(rows.map((r) => [r.group, r.enabled]), [
    ['read', true], ['edit', true], ['browser', true], ['command', false], ['mcp', true], ['modes', true], ['web', false],
  ]);
  assert.equal(rows[1]!.fileRegex, '\\.md$');
  assert.equal(rows[1]!.description, 'Markdown files only');
  assert.ok(rows[1]!.tools.includes('apply_diff'));
  const mcp = describeToolGroups(custom([['mcp', { tools: ['mcp__gh__*'] }]]))[4]!;
  assert.deepEqual(mcp.mcpTools, ['mcp__gh__*']);
});
