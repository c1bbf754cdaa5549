import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { startServer, tempDir, type ServerProcess } from './harness.js';
import { runCli } from './cli-run.js';
import { editDecision, evaluate, type PermissionValue, type Reading } from './opencode-eval.js';
import { parseYaml } from '../../src/yaml/read.js';
import { splitShellWords } from '../../src/cli/shell-words.js';
import { compileSchema } from '../../src/schema/validate.js';

type TestCtx = { after(fn: () => void | Promise<void>): void };

/** Custom modes whose patterns cover the shapes people write; one has no exact glob. */
const ROOMODES = [
  'customModes:',
  ...[
    ['docs-writer', '^docs/'], ['config-keeper', '\\.(ya?ml|json)$'], ['spec-writer', '^(docs|specs)/.*\\.md$'],
    ['readme-keeper', '/README\\.md$'], ['test-writer', '\\.test\\.[jt]sx?$'],
  ].flatMap(([slug, regex]) => [
    `  - slug: ${slug}`, `    name: ${slug}`, `    roleDefinition: You look after ${slug}.`,
    `    whenToUse: When ${slug} work is needed.`, '    groups:', '      - read', '      - command',
    '      - - edit', `        - fileRegex: ${JSON.stringify(regex)}`,
  ]),
  '',
].join('\n');
const UNTRANSLATABLE = 'customModes:\n  - slug: flat-ts\n    name: Flat TS\n    roleDefinition: Edits top-level TypeScript.\n    groups:\n      - - edit\n        - fileRegex: "^src/[^/]*\\\\.ts$"\n';

function project(t: TestCtx, modes = ROOMODES): { root: string; env: Record<string, string> } {
  const root = tempDir(t, 'rms-export-');
  const home = tempDir(t, 'rms-export-home-');
  writeFileSync(join(root, '.roomodes'), modes);
  mkdirSync(join(root, '.roo', 'rules-docs-writer'), { recursive: true });
  writeFileSync(join(root, '.roo', 'rules-docs-writer', 'style.md'), 'Write short sentences.\n');
  return { root, env: { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), ROO_PROJECT_ROOT: root } };
}

/** The YAML between the opening and closing `---` lines, parsed by our own reader; and the body. */
function frontmatter(text: string): { data: Record<string, unknown>; body: string; raw: string } {
  assert.ok(text.startsWith('---\n'), 'starts with ---');
  const end = text.indexOf('\n---\n', 4);
  assert.ok(end > 0, 'has a closing ---');
  const raw = text.slice(4, end + 1);
  return { data: parseYaml(raw).value as Record<string, unknown>, body: text.slice(end + 5), raw };
}

/** Every file under dir, relative path → bytes. */
function tree(dir: string, base = dir): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    if (e.isDirectory()) for (const [k, v] of tree(full, base)) out.set(k, v);
    else out.set(full.slice(base.length + 1), readFileSync(full, 'utf8'));
  }
  return out;
}

const CLAUDE_FIELDS = new Set(['name', 'description', 'tools', 'disallowedTools', 'model', 'permissionMode', 'hooks', 'mcpServers', 'color', 'skills']);

test('a Claude Code agent parses as Claude Code expects, and its hook command enforces the pattern', async (t) => {
  const { root, env } = project(t);
  const r = await runCli(['export', '--to', 'claude-code'], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const architect = frontmatter(readFileSync(join(root, '.claude', 'agents', 'architect.md'), 'utf8'));
  for (const key of Object.keys(architect.data)) assert.ok(CLAUDE_FIELDS.has(key), `unknown field ${key}`);
  assert.equal(architect.data.name, 'architect');
  assert.equal(typeof architect.data.description, 'string');
  assert.match(architect.raw, /^# Exported by roo-modes-server from mode architect \(built-in\)/);
  assert.equal(architect.data.disallowedTools, 'Bash');
  assert.match(architect.body, /^\nYou are a software architect/);
  const hooks = architect.data.hooks as { PreToolUse: { matcher: string; hooks: { type: string; command: string }[] }[] };
  const entry = hooks.PreToolUse[0]!;
  for (const tool of ['Edit', 'MultiEdit', 'Write', 'NotebookEdit']) assert.match(tool, new RegExp(`^(?:${entry.matcher})$`));
  assert.equal(entry.hooks[0]!.type, 'command');

  const writer = frontmatter(readFileSync(join(root, '.claude', 'agents', 'docs-writer.md'), 'utf8'));
  assert.equal(writer.data.tools, 'Read, Glob, Grep, LS, Edit, MultiEdit, Write, NotebookEdit, Bash, TodoWrite');
  assert.match(writer.raw, /from mode docs-writer from \.roomodes line 2/);
  assert.match(writer.body, /## Rules from \.roo\/rules-docs-writer\/style\.md\n\nWrite short sentences\./);
  assert.equal(frontmatter(readFileSync(join(root, '.claude', 'agents', 'code.md'), 'utf8')).data.hooks, undefined);

  // The command written into the agent, run as Claude Code runs it, refuses an edit outside docs/.
  const words = splitShellWords((writer.data.hooks as typeof hooks).PreToolUse[0]!.hooks[0]!.command);
  const run = (file: string): ReturnType<typeof spawnSync> => spawnSync(words[0]!, words.slice(1), {
    input: JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(root, file), content: 'x' }, cwd: root }),
    env: { ...process.env, ...env, CLAUDE_PROJECT_DIR: root }, encoding: 'utf8',
  });
  const refused = run('src/app.ts');
  assert.equal(refused.status, 0, String(refused.stderr));
  assert.match(String(refused.stdout), /"permissionDecision":"deny".*\^docs\//);
  assert.equal(String(run('docs/intro.md').stdout), '');
});

test('export is deterministic, keeps existing files unless --force, and --dry-run writes nothing', async (t) => {
  const { env } = project(t);
  const outA = tempDir(t, 'rms-export-a-');
  const outB = tempDir(t, 'rms-export-b-');
  for (const target of ['claude-code', 'vscode', 'cursor', 'opencode', 'kilo']) {
    for (const out of [outA, outB]) assert.equal((await runCli(['export', '--to', target, '--out', out], { env })).code, 0, target);
  }
  const a = tree(outA);
  assert.deepEqual(a, tree(outB));
  assert.ok(a.has('.github/agents/docs-writer.agent.md') && a.has('.cursor/rules/architect.mdc') && a.has('.kilo/agents/spec-writer.md'));
  for (const [file, text] of a) assert.match(text, /^---\n# Exported by roo-modes-server from mode [a-z-]+ /, file);

  const file = join(outA, '.opencode', 'agents', 'architect.md');
  writeFileSync(file, 'my own agent\n');
  const kept = await runCli(['export', '--to', 'opencode', '--mode', 'architect', '--out', outA], { env });
  assert.equal(kept.code, 0);
  assert.match(kept.stdout, /kept existing: .*architect\.md \(differs; --force overwrites it\)/);
  assert.equal(readFileSync(file, 'utf8'), 'my own agent\n');
  const dry = await runCli(['export', '--to', 'opencode', '--mode', 'architect', '--out', outA, '--force', '--dry-run'], { env });
  assert.match(dry.stdout, /==> .*architect\.md \(would overwrite\) <==\n---\n/);
  assert.equal(readFileSync(file, 'utf8'), 'my own agent\n');
  const forced = await runCli(['export', '--to', 'opencode', '--mode', 'architect', '--out', outA, '--force'], { env });
  assert.match(forced.stdout, /overwrote: .*architect\.md/);
  assert.equal(readFileSync(file, 'utf8'), a.get('.opencode/agents/architect.md'));
  const again = await runCli(['export', '--to', 'opencode', '--mode', 'architect', '--out', outA], { env });
  assert.match(again.stdout, /unchanged: /);

  const empty = tempDir(t, 'rms-export-dry-');
  await runCli(['export', '--to', 'vscode', '--out', empty, '--dry-run'], { env });
  assert.deepEqual(readdirSync(empty), []);
});

test('export refuses bad usage, unknown modes and a fileRegex with no exact glob (or writes ask with --lossy)', async (t) => {
  const { root, env } = project(t, UNTRANSLATABLE);
  for (const [args, why] of [
    [[], /--to is required/], [['--to', 'windsurf'], /unknown target "windsurf"/], [['--to', 'kilo', '--mode', 'nope'], /unknown mode nope/],
    [['--to', 'cursor', '--settings'], /--settings goes with --to claude-code/],
    [['--to', 'constructor'], /unknown target "constructor"/], [['toString', '--to', 'kilo'], /unexpected argument toString/],
  ] as [string[], RegExp][]) {
    const r = await runCli(['export', ...args], { env, cwd: root });
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, why);
  }
  const refused = await runCli(['export', '--to', 'kilo', '--mode', 'flat-ts'], { env });
  assert.equal(refused.code, 1);
  assert.match(refused.stdout, /refused: mode flat-ts: no exact glob for .*negated character class.*--lossy/);
  assert.equal(existsSync(join(root, '.kilo', 'agents', 'flat-ts.md')), false);
  const lossy = await runCli(['export', '--to', 'kilo', '--mode', 'flat-ts', '--lossy'], { env });
  assert.equal(lossy.code, 0, lossy.stdout);
  assert.match(lossy.stdout, /not carried over \(flat-ts\): edit pattern written as "ask"/);
  const perm = frontmatter(readFileSync(join(root, '.kilo', 'agents', 'flat-ts.md'), 'utf8')).data.permission as Record<string, PermissionValue>;
  assert.equal(evaluate(perm, 'edit', 'src/a.ts', 'newer'), 'ask');
});

test('Cursor rules and VS Code agents parse, say what they cannot enforce, and list VS Code tool sets', async (t) => {
  const { root, env } = project(t);
  assert.equal((await runCli(['export', '--to', 'cursor', '--mode', 'architect'], { env })).code, 0);
  const rule = frontmatter(readFileSync(join(root, '.cursor', 'rules', 'architect.mdc'), 'utf8'));
  assert.deepEqual(Object.keys(rule.data).sort(), ['alwaysApply', 'description']);
  assert.equal(rule.data.alwaysApply, false);
  assert.match(rule.raw, /^description: "/m);
  assert.match(rule.body, /described, not enforced/);
  assert.match(rule.body, /`\\\.md\$`/);
  const vs = await runCli(['export', '--to', 'vscode', '--mode', 'architect', '--mode', 'docs-writer'], { env });
  assert.equal(vs.code, 0);
  const agent = frontmatter(readFileSync(join(root, '.github', 'agents', 'docs-writer.agent.md'), 'utf8'));
  assert.deepEqual(agent.data.tools, ['read', 'search', 'edit', 'execute', 'todo']);
  assert.match(JSON.stringify(agent.data.hooks), /hook claude-code --mode docs-writer --edits-only/);
});

test('--settings merges the hooks into .claude/settings.json, keeping other entries, with a backup', async (t) => {
  const { root, env } = project(t);
  const settings = join(root, '.claude', 'settings.json');
  mkdirSync(join(root, '.claude'));
  const mine = { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] };
  writeFileSync(settings, `${JSON.stringify({ model: 'opus', permissions: { allow: ['Read'] }, hooks: { PreToolUse: [mine], Stop: [] } }, null, 2)}\n`);
  const first = await runCli(['export', '--to', 'claude-code', '--settings'], { env });
  assert.equal(first.code, 0, first.stdout);
  assert.match(first.stdout, /updated: .*settings\.json \(6 hooks; previous version kept as .*settings\.json\.bak-/);
  const merged = JSON.parse(readFileSync(settings, 'utf8'));
  assert.equal(merged.model, 'opus');
  assert.deepEqual(merged.permissions, { allow: ['Read'] });
  assert.deepEqual(merged.hooks.Stop, []);
  assert.deepEqual(merged.hooks.PreToolUse[0], mine);
  const commands = merged.hooks.PreToolUse.slice(1).map((e: { hooks: { command: string }[] }) => e.hooks[0]!.command);
  assert.equal(commands.length, 6);
  assert.ok(commands.every((c: string) => / hook claude-code --mode ([a-z-]+) --agent \1$/.test(c)), commands.join('\n'));
  assert.ok(readdirSync(join(root, '.claude')).some((n) => n.startsWith('settings.json.bak-')));
  const second = await runCli(['export', '--to', 'claude-code', '--settings'], { env });
  assert.match(second.stdout, /unchanged: .*settings\.json/);
});

/** Paths inside the project (normalised) and two outside it. */
const PATHS = [
  'README.md', 'docs/README.md', 'docs/a.md', 'docs/deep/b.md', 'docs/x.ts', 'docsx/a.md', 'specs/c.md', 'specs/c.txt',
  'src/a.ts', 'src/a.test.ts', 'src/b.test.tsx', 'src/c.test.js', 'a.test.ts', 'config.yaml', 'ci/build.yml',
  'package.json', 'x.json5', 'src/README.md', 'src/readme.md', 'notes.md', '.roomodes', 'docs', '../outside.md', '../docs/a.md',
];

async function validate(s: ServerProcess, id: string, session: string, tool: string, file?: string): Promise<Record<string, unknown>> {
  const res = await s.tool(id, 'validate_tool_use', { session_id: session, tool_name: tool, ...(file === undefined ? {} : { file_path: file }) });
  assert.equal(res.error, undefined, JSON.stringify(res.error));
  return res.result.structuredContent as Record<string, unknown>;
}

test('OpenCode and Kilo permission rules agree with validate_tool_use on a table of paths, under both glob readings', async (t) => {
  const { root, env } = project(t);
  for (const target of ['opencode', 'kilo']) assert.equal((await runCli(['export', '--to', target], { env })).code, 0, target);
  const s = startServer(t, { args: ['--project-root', root], env });
  await s.initialize('2025-11-25');
  const listed = await s.call('list', 'tools/list');
  const schema = compileSchema(listed.result.tools.find((x: { name: string }) => x.name === 'validate_tool_use').outputSchema);
  let n = 0;
  const slugs = ['architect', 'code', 'ask', 'docs-writer', 'config-keeper', 'spec-writer', 'readme-keeper', 'test-writer'];
  for (const slug of slugs) {
    const task = await s.tool(`t-${slug}`, 'create_task', { mode_slug: slug });
    const session = task.result.structuredContent.session_id as string;
    for (const folder of ['.opencode', '.kilo']) {
      const perm = frontmatter(readFileSync(join(root, folder, 'agents', `${slug}.md`), 'utf8')).data.permission as Record<string, PermissionValue>;
      for (const path of PATHS) {
        const answer = await validate(s, `v${++n}`, session, 'write', path);
        assert.deepEqual(schema(answer), []);
        assert.deepEqual(answer.client_tool, { clients: ['opencode', 'cursor'], group: 'edit' });
        for (const reading of ['older', 'newer'] as Reading[]) {
          const allowed = editDecision(perm, path, reading) === 'allow';
          assert.equal(allowed, answer.allowed, `${folder} ${slug} ${path} (${reading}): OpenCode ${allowed}, validate_tool_use ${String(answer.allowed)}`);
        }
      }
      // Tools whose permission takes patterns are asked about a nested path or a command; the
      // on/off ones (webfetch, todowrite: one action only in OpenCode's schema) and MCP tools with "*".
      const targets: [string, string][] = [
        ['read', 'src/deep/a.ts'], ['glob', 'src/**/*.ts'], ['grep', 'src/deep'], ['list', 'src/deep'], ['bash', 'npm run build ./x'],
        ['task', 'general'], ['webfetch', '*'], ['todowrite', '*'], ['mcp_github_create_issue', '*'],
      ];
      for (const [tool, target] of targets) {
        const answer = await validate(s, `v${++n}`, session, tool);
        for (const reading of ['older', 'newer'] as Reading[]) {
          assert.equal(evaluate(perm, tool, target, reading) === 'allow', answer.allowed, `${folder} ${slug} ${tool} (${reading})`);
        }
      }
    }
  }
  s.assertStdoutPure();
});
