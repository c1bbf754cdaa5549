// `export --to cursor [--enforce SLUG]` through the built CLI: a rule and a native subagent per mode,
// the preToolUse hook merged into .cursor/hooks.json (others kept, backed up, idempotent), and a
// report of what Cursor holds each mode to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, tempDir } from './harness.js';
import { runCli } from './cli-run.js';

type Ctx = { after(fn: () => void): void };
type HookEntry = { command: string; failClosed?: boolean; matcher?: string };

const ROOMODES = JSON.stringify({
  customModes: [
    { slug: 'docs-writer', name: 'Docs writer', roleDefinition: 'You write the docs.', groups: ['read', ['edit', { fileRegex: '^docs/' }]] },
    { slug: 'test-writer', name: 'Test writer', roleDefinition: 'You write tests.', groups: ['read', 'command', ['edit', { fileRegex: '\\.test\\.ts$' }]] },
    { slug: 'Reviewer', name: 'Reviewer', roleDefinition: 'You review. Read everything.', customInstructions: 'Say what you would change.', groups: ['read', 'command'] },
  ],
});

function project(t: Ctx): { root: string; env: Record<string, string> } {
  const root = tempDir(t, 'rms-cursor-');
  const home = tempDir(t, 'rms-cursor-home-');
  writeFileSync(join(root, '.roomodes'), ROOMODES);
  return { root, env: { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), ROO_PROJECT_ROOT: root } };
}

const hooksFile = (root: string): string => join(root, '.cursor', 'hooks.json');
const ours = (e: HookEntry): boolean => / hook cursor --mode \S+$/.test(e.command);

test('--enforce writes one fail-closed preToolUse hook, and the rules say which mode binds', async (t) => {
  const { root, env } = project(t);
  const r = await runCli(['export', '--to', 'cursor', '--mode', 'docs-writer', '--mode', 'test-writer', '--enforce', 'docs-writer'], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /wrote: .*\.cursor\/hooks\.json \(preToolUse hook for mode docs-writer\)/);
  assert.match(r.stdout, /enforcement: Cursor: \.cursor\/hooks\.json runs the hook for mode docs-writer .*every agent chat.*subagents included.*failClosed/);
  const text = readFileSync(hooksFile(root), 'utf8');
  const file = JSON.parse(text) as { version: number; hooks: { preToolUse: HookEntry[] } };
  assert.equal(file.version, 1);
  assert.equal(file.hooks.preToolUse.length, 1);
  const [entry] = file.hooks.preToolUse;
  assert.equal(entry!.command, 'node .cursor/hooks/roo-modes-check.cjs hook cursor --mode docs-writer', 'node runs the check written beside it, from the project root');
  assert.match(readFileSync(join(root, '.cursor', 'hooks', 'roo-modes-check.cjs'), 'utf8'), /^\/\/ roo-modes-check \S+ sha256:[0-9a-f]{64} Exported by roo-modes-server/);
  assert.match(r.stdout, /enforcement: the hook runs node \.cursor\/hooks\/roo-modes-check\.cjs from the project root.*where node is missing the hook cannot start, and failClosed blocks the call/);
  assert.equal(entry!.failClosed, true);
  assert.equal(entry!.matcher, undefined, 'no matcher: every tool reaches the hook');
  for (const place of [root, env.HOME!, REPO.replace(/\/$/, ''), process.execPath]) assert.ok(!text.includes(place), `hooks.json names ${place}`);

  const enforced = readFileSync(join(root, '.cursor', 'rules', 'docs-writer.mdc'), 'utf8');
  assert.match(enforced, /## Limits of this mode \(enforced by a hook\)/);
  // The rule names the launcher hooks.json runs, word for word, so a reader can run it by hand.
  assert.ok(enforced.includes(`\`.cursor/hooks.json\` runs \`${entry!.command}\` before every tool call`), enforced);
  assert.doesNotMatch(enforced, /roo-modes-server hook/, 'not a launcher the hook does not run');
  assert.match(enforced, /hold in every agent chat of this project/);
  assert.match(enforced, /- edit — only files whose path matches the regular expression `\^docs\/`/);
  const other = readFileSync(join(root, '.cursor', 'rules', 'test-writer.mdc'), 'utf8');
  assert.match(other, /## Limits of this mode \(described, not enforced\)/);
  assert.match(other, /holds every agent chat of this project, this one included, to the limits of mode docs-writer/);

  const plain = await runCli(['export', '--to', 'cursor', '--mode', 'test-writer', '--out', join(root, 'plain')], { env, cwd: root });
  assert.equal(plain.code, 0, plain.stdout + plain.stderr);
  assert.deepEqual(readdirSync(join(root, 'plain', '.cursor')).sort(), ['agents', 'rules'], 'no hooks.json without --enforce');
  assert.match(plain.stdout, /enforcement: Cursor: --enforce SLUG makes one mode binding/);
  assert.doesNotMatch(readFileSync(join(root, 'plain', '.cursor', 'rules', 'test-writer.mdc'), 'utf8'), /holds every agent chat/);
});

test('each mode is also a Cursor subagent: instructions and limits, readonly without edit, and the report says what Cursor holds', async (t) => {
  const { root, env } = project(t);
  const r = await runCli(['export', '--to', 'cursor'], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(readdirSync(join(root, '.cursor', 'agents')).sort(), ['docs-writer.md', 'reviewer.md', 'test-writer.md'], 'named by the slug lower-cased');
  const reviewer = readFileSync(join(root, '.cursor', 'agents', 'reviewer.md'), 'utf8');
  assert.match(reviewer, /^---\n# Exported by roo-modes-server from mode Reviewer from \.roomodes line 1; export again rather than editing\.\nname: reviewer\ndescription: "You review\."\nreadonly: true\n---\n\nYou review\. Read everything\.\n\n## Mode instructions\n\nSay what you would change\.\n/);
  assert.match(reviewer, /## Limits of this mode \(described, not enforced\)[\s\S]*- command\n- Not in this mode: edit/);
  const docs = readFileSync(join(root, '.cursor', 'agents', 'docs-writer.md'), 'utf8');
  assert.match(docs, /^name: docs-writer$/m);
  assert.doesNotMatch(docs, /readonly/, 'a mode that edits is not readonly');
  assert.match(docs, /- edit — only files whose path matches the regular expression `\^docs\/`/);
  for (const text of [reviewer, docs]) for (const place of [root, env.HOME!, REPO.replace(/\/$/, '')]) assert.ok(!text.includes(place), `a subagent names ${place}`);
  assert.match(r.stdout, /enforced \(Reviewer\): the subagent is readonly: Cursor lets it write no file\n/);
  assert.match(r.stdout, /not carried over \(Reviewer\): readonly restricts writes as a whole, so commands that change files may be refused too/);
  assert.match(r.stdout, /enforced \(docs-writer\): nothing: the rule and the subagent describe the limits\n/);
  assert.match(r.stdout, /not carried over \(docs-writer\): the edit pattern \^docs\/: a Cursor subagent has no path limits; only --enforce docs-writer .* holds it/);
  assert.match(r.stdout, /enforcement: Cursor: each mode is a rule and a subagent .*readonly/);

  const enforced = await runCli(['export', '--to', 'cursor', '--enforce', 'docs-writer'], { env, cwd: root });
  assert.equal(enforced.code, 0, enforced.stdout);
  assert.match(enforced.stdout, /enforced \(docs-writer\): \.cursor\/hooks\.json holds every agent chat of the project, this subagent included, to this mode's tool groups and its edit pattern \^docs\//);
  assert.match(enforced.stdout, /enforced \(Reviewer\): the subagent is readonly[^\n]*\n {2}enforced \(Reviewer\): \.cursor\/hooks\.json holds every agent chat, this subagent included, to mode docs-writer/);
  assert.match(readFileSync(join(root, '.cursor', 'agents', 'docs-writer.md'), 'utf8'), /## Limits of this mode \(enforced by a hook\)/);

  // A subagent file no mode produces any more is a left-over, as a rule is.
  writeFileSync(join(root, '.cursor', 'agents', 'gone.md'), reviewer.replace('name: reviewer', 'name: gone'));
  const left = await runCli(['export', '--to', 'cursor', '--check'], { env, cwd: root });
  assert.equal(left.code, 1);
  assert.match(left.stdout, /left over: .*\.cursor\/agents\/gone\.md/);
});

test('an existing hooks.json keeps its hooks and comments, is backed up, and a re-export changes nothing', async (t) => {
  const { root, env } = project(t);
  mkdirSync(join(root, '.cursor'));
  const before = [
    '{',
    '  // team hooks',
    '  "hooks": {',
    '    "preToolUse": [ { "command": "./.cursor/audit.sh", "matcher": "Shell" } ],',
    '    "stop": [ { "command": "./.cursor/stop.sh" } ],',
    '  },',
    '}',
    '',
  ].join('\n');
  writeFileSync(hooksFile(root), before);
  const first = await runCli(['export', '--to', 'cursor', '--enforce', 'docs-writer'], { env, cwd: root });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const saved = /previous version kept as (\S+)\)/.exec(first.stdout)?.[1];
  assert.ok(saved !== undefined, first.stdout);
  assert.equal(readFileSync(saved, 'utf8'), before, 'the backup holds the old text');
  const after = readFileSync(hooksFile(root), 'utf8');
  assert.match(after, /^\{\n {2}\/\/ team hooks\n {2}"version": 1,\n/, 'the comment kept, the version added');
  assert.match(after, /"stop": \[ \{ "command": "\.\/\.cursor\/stop\.sh" \} \],/, 'the other event untouched, byte for byte');
  const parsed = JSON.parse(after.replace(/^\s*\/\/.*$/m, '').replace(/,(\s*[}\]])/g, '$1')) as { hooks: { preToolUse: HookEntry[] } };
  assert.deepEqual(parsed.hooks.preToolUse.map((e) => e.command.replace(/^.* hook cursor/, 'hook cursor')), ['./.cursor/audit.sh', 'hook cursor --mode docs-writer']);

  const again = await runCli(['export', '--to', 'cursor', '--enforce', 'docs-writer'], { env, cwd: root });
  assert.equal(again.code, 0);
  assert.match(again.stdout, /unchanged: .*hooks\.json/);
  assert.equal(readFileSync(hooksFile(root), 'utf8'), after);
  assert.equal(readdirSync(join(root, '.roo', 'backups')).filter((n) => n.endsWith('-config-cursor-hooks-json')).length, 1, 'no second backup');
  assert.ok(saved.startsWith(join(root, '.roo', 'backups')), saved);

  // Another mode replaces ours: two would hold every chat to both.
  const other = await runCli(['export', '--to', 'cursor', '--enforce', 'test-writer'], { env, cwd: root });
  assert.equal(other.code, 0, other.stdout + other.stderr);
  const entries = (JSON.parse(readFileSync(hooksFile(root), 'utf8').replace(/^\s*\/\/.*$/m, '').replace(/,(\s*[}\]])/g, '$1')) as { hooks: { preToolUse: HookEntry[] } }).hooks.preToolUse;
  assert.deepEqual(entries.filter(ours).map((e) => e.command.replace(/^.* hook cursor/, 'hook cursor')), ['hook cursor --mode test-writer']);
  assert.equal(entries.length, 2);

  // --check writes nothing and fails while the hook is not the one this export would write.
  const stale = readFileSync(hooksFile(root), 'utf8');
  const check = await runCli(['export', '--to', 'cursor', '--enforce', 'docs-writer', '--check'], { env, cwd: root });
  assert.equal(check.code, 1, check.stdout);
  assert.match(check.stdout, /stale: .*hooks\.json \(preToolUse hook for mode docs-writer: missing or out of date\)/);
  assert.equal(readFileSync(hooksFile(root), 'utf8'), stale);
  const current = await runCli(['export', '--to', 'cursor', '--enforce', 'test-writer', '--check'], { env, cwd: root });
  assert.equal(current.code, 0, current.stdout);
  assert.match(current.stdout, /unchanged: .*hooks\.json/);
});

test('a project-local launcher is left for the shell to find through CLAUDE_PROJECT_DIR, which Cursor sets', async (t) => {
  const { root, env } = project(t);
  const args = ['export', '--to', 'cursor', '--enforce', 'docs-writer', '--hook-command', '${CLAUDE_PROJECT_DIR}/node_modules/.bin/roo-modes-server'];
  const r = await runCli(args, { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const entries = (JSON.parse(readFileSync(hooksFile(root), 'utf8')) as { hooks: { preToolUse: HookEntry[] } }).hooks.preToolUse;
  assert.deepEqual(entries, [{ command: '"${CLAUDE_PROJECT_DIR}"/node_modules/.bin/roo-modes-server hook cursor --mode docs-writer', failClosed: true }]);
  const rule = (): string => readFileSync(join(root, '.cursor', 'rules', 'docs-writer.mdc'), 'utf8');
  assert.ok(rule().includes('runs `"${CLAUDE_PROJECT_DIR}"/node_modules/.bin/roo-modes-server hook cursor --mode docs-writer` before every tool call'), rule());
  const again = await runCli(args, { env, cwd: root });
  assert.match(again.stdout, /unchanged: .*hooks\.json/, 'recognised as its own');
  // Without the flag a re-export keeps the launcher it wrote, and so does --check.
  for (const extra of [[], ['--check']]) {
    const kept = await runCli([...args.slice(0, -2), ...extra], { env, cwd: root });
    assert.equal(kept.code, 0, kept.stdout);
    assert.match(kept.stdout, /unchanged: .*hooks\.json/);
    assert.match(kept.stdout, /the hooks keep what the earlier export wrote \(read from .*hooks\.json\): \$\{CLAUDE_PROJECT_DIR\}\/node_modules\/\.bin\/roo-modes-server/);
    assert.match(kept.stdout, /unchanged: .*docs-writer\.mdc/, 'the rule keeps naming the kept launcher');
  }
  assert.equal(readdirSync(join(root, '.cursor')).includes('hooks'), false, 'no check file where no hook runs it');
});

test('hooks.json it cannot edit safely is refused and left alone; bad flags are usage errors', async (t) => {
  const { root, env } = project(t);
  mkdirSync(join(root, '.cursor'));
  for (const [text, why] of [
    ['{ "hooks": { "preToolUse": [ ', /is not valid JSON \(line 1/],
    ['{ "version": 2, "hooks": {} }', /"version" is 2; this export writes version 1 entries/],
    ['{ "version": 1, "hooks": { "preToolUse": {} } }', /"hooks\.preToolUse" is not an array/],
    ['[]', /the top level is not a JSON object/],
  ] as const) {
    writeFileSync(hooksFile(root), text);
    const r = await runCli(['export', '--to', 'cursor', '--enforce', 'docs-writer'], { env, cwd: root });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, why);
    assert.equal(readFileSync(hooksFile(root), 'utf8'), text);
  }
  assert.deepEqual(readdirSync(join(root, '.cursor')).filter((n) => n.includes('.bak-')), []);

  const dry = await runCli(['export', '--to', 'cursor', '--enforce', 'docs-writer', '--dry-run', '--out', join(root, 'dry')], { env, cwd: root });
  assert.equal(dry.code, 0, dry.stdout + dry.stderr);
  assert.match(dry.stdout, /would write: .*hooks\.json/);
  assert.match(dry.stdout, /"failClosed": true/);
  assert.throws(() => readdirSync(join(root, 'dry')));

  for (const [args, why] of [
    [['--to', 'opencode', '--enforce', 'docs-writer'], /--enforce goes with --to cursor/],
    [['--to', 'cursor', '--enforce', 'docs-writer', '--enforce', 'test-writer'], /--enforce takes one mode/],
    [['--to', 'cursor', '--mode', 'test-writer', '--enforce', 'docs-writer'], /leaves out; add --mode docs-writer/],
    [['--to', 'cursor', '--enforce', 'nope'], /unknown mode nope for --enforce/],
  ] as const) {
    const r = await runCli(['export', ...args], { env, cwd: root });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}`);
    assert.match(r.stderr, why);
  }
});
