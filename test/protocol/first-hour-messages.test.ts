// Messages a new user meets in the first hour, through the built server and CLI: mode-file problems
// logged at start and on each reload, a "not found" that names the file that failed, a misplaced
// fileRegex with its line and a hint, unknown names listed in the message, import-mode's report, and
// the CLI's usage errors (one form, with a guess at a mistyped command, flag or value).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir } from './harness.js';
import { runCli } from './cli-run.js';
import { pollUntil } from '../robustness/observe.js';

const BROKEN = [
  'customModes:',
  '  - slug: docs-writer',
  '    name: Docs Writer',
  '    roleDefinition: "You write docs',
  '    groups: [read]',
  '',
].join('\n');

const MISPLACED = [
  'customModes:',
  '  - slug: docs-writer',
  '    name: Docs Writer',
  '    roleDefinition: You write docs.',
  "    fileRegex: '\\.md$'",
  '    groups: [read, edit]',
  '',
].join('\n');

const count = (text: string, needle: string): number => text.split(needle).length - 1;

/** A server on a fresh project whose .roomodes holds `text`, initialized. */
async function serveProject(t: Parameters<typeof startServer>[0] & { after(fn: () => void): void }, text: string): Promise<{ s: ReturnType<typeof startServer>; file: string }> {
  const project = tempDir(t, 'rms-proj-');
  const file = join(project, '.roomodes');
  writeFileSync(file, text);
  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  return { s, file };
}

test('a .roomodes that does not parse is logged at start with file:line:column, before any tool call', async (t) => {
  const { s, file } = await serveProject(t, BROKEN);
  await pollUntil(() => s.stderr.includes(`${file}:4:36: cannot parse the file`), 'the start-up warning', 10_000);
  s.assertStdoutPure();
});

test('"Mode not found" for a slug in a file that failed to load names that file and its error', async (t) => {
  const { s, file } = await serveProject(t, BROKEN);
  const err = (await s.tool(1, 'get_mode_info', { mode_slug: 'docs-writer' })).error;
  assert.equal(err.code, -32001);
  assert.equal(err.message, `Mode not found: "docs-writer". A mode file defines it, but it did not load: ${file}:4:36: cannot parse the file: missing closing double quote. Available modes: code, architect, ask, debug, orchestrator`);
  assert.equal(err.data.load_problem, `${file}:4:36: cannot parse the file: missing closing double quote`);
  const other = (await s.tool(2, 'get_mode_info', { mode_slug: 'nobody' })).error;
  assert.equal(other.message, 'Mode not found: "nobody". Available modes: code, architect, ask, debug, orchestrator');
  s.assertStdoutPure();
});

test('each reload logs the problems still there, even when they are the same as before', async (t) => {
  const { s, file } = await serveProject(t, BROKEN);
  await s.tool(1, 'list_modes'); // the watch starts with the services
  const line = `${file}:4:36: cannot parse the file`;
  await pollUntil(() => count(s.stderr, line) >= 1, 'the first warning', 10_000);
  const before = count(s.stderr, line);
  writeFileSync(file, `${BROKEN}# edited, still broken\n`);
  await pollUntil(() => count(s.stderr, line) > before, 'the warning again after the edit', 10_000);
  writeFileSync(file, MISPLACED);
  await pollUntil(() => s.stderr.includes(`${file}:5:5: mode "docs-writer": fileRegex at the mode level`), 'the next problem after the next edit', 10_000);
});

test('a fileRegex at the mode level: its own line and where it belongs, in validate, list_modes and the start-up log', async (t) => {
  const project = tempDir(t, 'rms-proj-');
  const file = join(project, '.roomodes');
  writeFileSync(file, MISPLACED);
  const expected = `mode "docs-writer": fileRegex at the mode level is ignored (Roo reads it only inside a group), so the mode's edit group is unrestricted; it belongs in groups, as the edit group's option: - [edit, {fileRegex: '\\.md$'}]`;

  const v = await runCli(['validate', file]);
  assert.equal(v.code, 1, 'a restriction the author meant and does not have is a problem');
  assert.ok(v.stdout.includes(`${file}:5:5: ${expected}`), v.stdout);
  assert.doesNotMatch(v.stdout, /ignored key/, 'not the generic unknown-key warning');

  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  await pollUntil(() => s.stderr.includes(`${file}:5:5: ${expected}`), 'the start-up warning', 10_000);
  const answer = (await s.tool(1, 'list_modes')).result;
  assert.ok(answer.content[0].text.includes(`Problems in the mode files: 1\n- ${file}:5:5: ${expected}\n`), answer.content[0].text);
  const listed = answer.structuredContent;
  assert.deepEqual(listed.problems, [{ file, line: 5, slug: 'docs-writer', reason: expected }]);
  assert.ok(listed.modes.some((m: { slug: string }) => m.slug === 'docs-writer'), 'the mode still loads, as in Roo');

  const json = join(project, 'modes.json');
  writeFileSync(json, JSON.stringify({ customModes: [{ slug: 'j', name: 'J', roleDefinition: 'R', groups: ['read', 'edit'], fileRegex: '\\.md$' }] }, null, 2));
  const vj = await runCli(['validate', json]);
  assert.ok(vj.stdout.includes(`${json}:11:7: mode "j": fileRegex at the mode level`), vj.stdout);
  assert.ok(vj.stdout.includes('["edit", {"fileRegex": "\\\\.md$"}]'), 'a JSON file gets the hint in JSON');
});

test('other unknown keys are reported at the first one\'s line, not at 1:1', async (t) => {
  const project = tempDir(t, 'rms-proj-');
  const file = join(project, '.roomodes');
  writeFileSync(file, 'customModes:\n  - slug: a\n    name: A\n    roleDefinition: R\n    groups: [read]\n    colour: blue\n');
  const v = await runCli(['validate', file]);
  assert.equal(v.code, 0);
  assert.ok(v.stdout.includes(`${file}:6:5: ignored key no mode dialect knows`), v.stdout);
});

test('unknown tool, prompt and resource: the message itself lists what exists; a wrong argument key is named', async (t) => {
  const s = startServer(t);
  await s.initialize();
  const tool = (await s.call(1, 'tools/call', { name: 'get_mode_inf', arguments: {} })).error;
  assert.equal(tool.code, -32602);
  assert.match(tool.message, /^Unknown tool "get_mode_inf"\. Available tools: list_modes, get_mode_info, create_task, /);
  const prompt = (await s.call(2, 'prompts/get', { name: 'coder' })).error;
  assert.equal(prompt.message, 'Unknown prompt "coder". Prompts are named by mode slug: code, architect, ask, debug, orchestrator');
  const uri = (await s.call(3, 'resources/read', { uri: 'mode://code/conf' })).error;
  assert.equal(uri.message, 'Invalid resource URI "mode://code/conf": expected mode://{slug}, mode://{slug}/config or mode://{slug}/system_prompt');
  const key = (await s.tool(4, 'get_mode_info', { slug: 'code' })).error;
  assert.equal(key.code, -32004);
  assert.equal(key.message, 'Invalid arguments for get_mode_info: arguments: missing required property "mode_slug" (ignored the unknown argument "slug"; get_mode_info takes "mode_slug", "include_system_prompt")');
  s.assertStdoutPure();
});

test('import-mode says what it did with the rules folder: none is created for an import without rules files', async (t) => {
  const project = tempDir(t, 'rms-proj-');
  const exported = join(tempDir(t, 'rms-x-'), 'docs-writer.yaml');
  writeFileSync(exported, 'customModes:\n  - slug: docs-writer\n    name: Docs Writer\n    roleDefinition: You write docs.\n    groups: [read]\n    source: project\n');
  const dry = await runCli(['import-mode', exported, '--dry-run', '--project-root', project]);
  assert.match(dry.stdout, /- docs-writer: created; no rules files in the import, so no rules folder$/m);
  const r = await runCli(['import-mode', exported, '--project-root', project]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /- docs-writer: created; no rules files in the import, so no rules folder$/m);
  assert.doesNotMatch(r.stdout, /written with 0 rules files/);
  assert.equal(existsSync(join(project, '.roo', 'rules-docs-writer')), false);

  const withRules = join(tempDir(t, 'rms-x-'), 'with-rules.yaml');
  writeFileSync(withRules, 'customModes:\n  - slug: docs-writer\n    name: Docs Writer\n    roleDefinition: You write docs.\n    groups: [read]\n    rulesFiles:\n      - relativePath: style.md\n        content: Plain words.\n');
  const w = await runCli(['import-mode', withRules, '--project-root', project]);
  assert.match(w.stdout, new RegExp(`- docs-writer: replaced; wrote 1 rules file to ${join(project, '.roo', 'rules-docs-writer').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  const again = await runCli(['import-mode', exported, '--project-root', project]);
  assert.match(again.stdout, /- docs-writer: replaced; removed .*rules-docs-writer \(1 old entry\): the import has no rules files$/m);
  assert.equal(existsSync(join(project, '.roo', 'rules-docs-writer')), false);
});

test('a mistyped command, flag or value is named with the one most likely meant, in the one usage-error form', async () => {
  const cases: [string[], string][] = [
    [['modez'], 'roo-modes-server: unknown command "modez"; did you mean "modes"? (see roo-modes-server --help)'],
    [['--projct-root', '.'], 'roo-modes-server: unknown option "--projct-root"; did you mean "--project-root"? (see roo-modes-server --help)'],
    [['export', '--to', 'claude-code', '--dryrun'], 'roo-modes-server export: unknown option "--dryrun"; did you mean "--dry-run"? (see roo-modes-server export --help)'],
    [['call', 'list_modes', '--time-out', '5'], 'roo-modes-server call: unknown option "--time-out"; did you mean "--timeout"? (see roo-modes-server call --help)'],
    [['hook', 'cursr', '--mode', 'code'], 'roo-modes-server hook: unknown hook host "cursr"; use claude-code or cursor; did you mean "cursor"? (see roo-modes-server hook --help)'],
    [['add-to-mcp-config', '--client', 'vscod'], 'roo-modes-server add-to-mcp-config: --client "vscod": use one of claude, claude-code, vscode, roo or cursor; did you mean "vscode"? (see roo-modes-server add-to-mcp-config --help)'],
    [['modes', '--bogus'], 'roo-modes-server modes: unknown option "--bogus" (see roo-modes-server modes --help)'],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stderr, `${message}\n`);
    assert.equal(r.stdout, '');
  }
});

test('every CLI failure that is not a usage error starts with the same prefix, and import-mode says its reason once', async (t) => {
  const project = tempDir(t, 'rms-proj-');
  const bad = join(project, 'bad.json');
  writeFileSync(bad, JSON.stringify({ customModes: [{ slug: 'Bad Slug', name: 'x', roleDefinition: 'y', groups: ['read'] }] }));
  const refused = await runCli(['import-mode', bad, '--project-root', project]);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, 'roo-modes-server import-mode: Import refused: customModes[0] ("Bad Slug") is invalid: slug: "Bad Slug" must be letters, digits and dashes only\n');
  const cases: [string[], RegExp, number][] = [
    [['import-mode', join(project, 'missing.json'), '--project-root', project], /^roo-modes-server import-mode: .*missing\.json: /, 1],
    [['export-mode', 'nobody', '--project-root', project], /^roo-modes-server export-mode: no mode "nobody"; available: /, 1],
    [['add-to-mcp-config', '--client', 'roo', '--project-root', join(project, 'nowhere')], /^roo-modes-server add-to-mcp-config: the project root .*nowhere does not exist/, 2],
    [['modes', '--project-root', project, '--html', join(project, 'no', 'dir', 'x.html')], /^roo-modes-server modes: cannot write /, 1],
  ];
  for (const [args, first, code] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, first);
    for (const line of r.stderr.trim().split('\n')) assert.match(line, /^roo-modes-server [a-z-]+: /, `${args[0]}: every line has the prefix`);
  }
});
