import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_MODES, builtinModes } from '../../src/modes/builtin.js';
import { ALWAYS_AVAILABLE_TOOLS, TOOL_ALIASES, TOOL_GROUPS, groupOfTool, resolveToolAlias } from '../../src/modes/tool-groups.js';
import { compileToolPatterns, formatQualifiedName, matchesToolPattern, parseQualifiedName } from '../../src/modes/mcp-names.js';
import { validateModeEntry } from '../../src/modes/validate-mode.js';
import { TOOL_GROUP_NAMES } from '../../src/modes/types.js';

test('built-in modes are code, architect, ask, debug, orchestrator in that order', () => {
  assert.deepEqual(BUILTIN_MODES.map((m) => m.slug), ['code', 'architect', 'ask', 'debug', 'orchestrator']);
  assert.deepEqual(BUILTIN_MODES.map((m) => m.name), ['💻 Code', '🏗️ Architect', '❓ Ask', '🪲 Debug', '🪃 Orchestrator']);
});

test('every built-in mode passes the same validation as a custom mode and has its texts', () => {
  for (const m of BUILTIN_MODES) {
    const r = validateModeEntry(m);
    assert.equal(r.ok, true, `${m.slug}: ${r.ok ? '' : r.problems.join('; ')}`);
    assert.ok(m.whenToUse && m.description && m.roleDefinition.length > 40, m.slug);
    assert.equal(m.customInstructions !== undefined, m.slug !== 'code', `${m.slug} customInstructions`);
  }
});

test('built-in groups follow the seed API', () => {
  const groups = Object.fromEntries(BUILTIN_MODES.map((m) => [m.slug, m.groups]));
  assert.deepEqual(groups.code, ['read', 'edit', 'browser', 'command', 'mcp', 'modes']);
  assert.deepEqual(groups.architect, ['read', ['edit', { fileRegex: '\\.md$', description: 'Markdown files only' }], 'browser', 'mcp', 'modes']);
  assert.deepEqual(groups.ask, ['read', 'browser', 'mcp', 'modes']);
  assert.deepEqual(groups.debug, ['read', 'edit', 'browser', 'command', 'mcp', 'modes']);
  assert.deepEqual(groups.orchestrator, ['modes']);
});

test('builtinModes returns fresh copies marked builtin, leaving the table untouched', () => {
  const a = builtinModes();
  assert.ok(a.every((m) => m.source === 'builtin' && m.file === undefined));
  (a[1]!.groups[1] as [string, { fileRegex?: string }])[1].fileRegex = 'x';
  assert.equal((BUILTIN_MODES[1]!.groups[1] as [string, { fileRegex: string }])[1].fileRegex, '\\.md$');
  assert.throws(() => { (BUILTIN_MODES as unknown as { slug: string }[])[0]!.slug = 'x'; });
});

test('the tool table names only known groups and puts no tool in two groups', () => {
  assert.deepEqual(Object.keys(TOOL_GROUPS), [...TOOL_GROUP_NAMES]);
  const seen = new Map<string, string>();
  for (const [group, tools] of Object.entries(TOOL_GROUPS)) {
    for (const t of tools) {
      assert.equal(seen.get(t), undefined, `${t} is in ${seen.get(t)} and ${group}`);
      seen.set(t, group);
    }
  }
  for (const [alias, target] of Object.entries(TOOL_ALIASES)) {
    assert.ok(seen.has(target), `alias ${alias} points at unknown ${target}`);
    assert.ok(!seen.has(alias), `alias ${alias} shadows a real tool`);
  }
  for (const t of ['switch_mode', 'new_task']) assert.ok(ALWAYS_AVAILABLE_TOOLS.includes(t));
});

test('the table holds classic and current names', () => {
  for (const [tool, group] of [
    ['list_code_definition_names', 'read'], ['fetch_instructions', 'read'], ['codebase_search', 'read'],
    ['insert_content', 'edit'], ['apply_patch', 'edit'], ['append_to_file', 'edit'], ['edit', 'edit'],
    ['browser_action', 'browser'], ['read_command_output', 'command'], ['access_mcp_resource', 'mcp'],
  ] as const) assert.equal(groupOfTool(tool), group, tool);
  assert.equal(resolveToolAlias('write_file'), 'write_to_file');
  assert.equal(resolveToolAlias('temp_edit_file'), 'search_and_replace');
  assert.equal(groupOfTool('write_file'), 'edit');
  assert.equal(groupOfTool('toString'), undefined);
  assert.equal(resolveToolAlias('constructor'), 'constructor');
});

test('qualified MCP names parse and format symmetrically', () => {
  assert.deepEqual(parseQualifiedName('mcp__github__create_issue'), { server: 'github', tool: 'create_issue' });
  assert.deepEqual(parseQualifiedName('mcp__my_server__do__it'), { server: 'my_server', tool: 'do__it' });
  for (const bad of ['mcp__', 'mcp__github', 'mcp__github__', 'mcp____x', 'mcp_github_x', 'read_file']) {
    assert.equal(parseQualifiedName(bad), null, bad);
  }
  assert.equal(formatQualifiedName('github', 'create_issue'), 'mcp__github__create_issue');
  assert.throws(() => formatQualifiedName('a__b', 'c'), TypeError);
  assert.throws(() => formatQualifiedName('', 'c'), TypeError);
});

test('tool patterns match exactly or with * wildcards', () => {
  assert.ok(matchesToolPattern('mcp__github__x', 'mcp__github__*'));
  assert.ok(matchesToolPattern('mcp__github__x', 'mcp__*'));
  assert.ok(matchesToolPattern('mcp__github__x', '*'));
  assert.ok(matchesToolPattern('mcp__github__create_issue', 'mcp__*__create_*'));
  assert.ok(!matchesToolPattern('mcp__gitlab__x', 'mcp__github__*'));
  assert.ok(!matchesToolPattern('mcp__github__x', 'mcp__github__y'));
  assert.ok(!matchesToolPattern('mcp__ab', 'mcp__a*b*b'));
  assert.ok(matchesToolPattern('mcp__abb', 'mcp__a*b*b'));
  const allowed = compileToolPatterns(['mcp__github__*', 'mcp__fs__read_file']);
  assert.ok(allowed('mcp__github__anything'));
  assert.ok(allowed('mcp__fs__read_file'));
  assert.ok(!allowed('mcp__fs__write_file'));
  assert.ok(!compileToolPatterns([])('mcp__x__y'));
});

test('patterns with many wildcards are matched without a regex', () => {
  const name = `mcp__${'a'.repeat(5000)}`;
  assert.ok(!matchesToolPattern(name, `${'*a'.repeat(50)}b`));
  assert.ok(matchesToolPattern(name, `${'*a'.repeat(50)}`));
  assert.ok(matchesToolPattern('mcp__x.y__z', 'mcp__x.y__*'));
  assert.ok(!matchesToolPattern('mcp__xzy__z', 'mcp__x.y__*'));
});

test('the mode source table: unique ids, project rows before global rows, every row naming files', async () => {
  const { MODE_SOURCES, allCandidates } = await import('../../src/modes/sources.js');
  const ids = MODE_SOURCES.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length);
  const firstGlobal = MODE_SOURCES.findIndex((r) => r.source === 'global');
  assert.ok(MODE_SOURCES.slice(firstGlobal).every((r) => r.source === 'global'), 'project rows come first');
  const paths = { projectRoot: '/p', configDir: '/c', globalModesFile: null, homeDir: '/h', platform: 'linux' as const, env: { HOME: '/h' } };
  for (const row of MODE_SOURCES) assert.ok(row.candidates(paths).length > 0, row.id);
  assert.ok(allCandidates(paths).includes('/h/.config/Code/User/globalStorage/kilocode.kilo-code/settings/custom_modes.yaml'));
  assert.ok(allCandidates(paths).includes('/p/.kilocodemodes'));
  assert.ok(allCandidates(paths).includes('/h/.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/custom_modes.yaml'), 'Roo\'s own global file is a global-config candidate');
});
