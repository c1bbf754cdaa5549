// `export --to gemini` through the built CLI: a subagent per mode, the policy file with rules per
// subagent, its policyPaths entry in .gemini/settings.json (merged, backed up), --check, partial exports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, tempDir } from './harness.js';
import { runCli } from './cli-run.js';

type Ctx = { after(fn: () => void): void };

const MODES = [
  { slug: 'docs-writer', name: 'Docs writer', roleDefinition: 'You write the docs.', groups: ['read', ['edit', { fileRegex: '\\.md$' }]] },
  { slug: 'Src-Dev', name: 'Source dev', roleDefinition: 'You write code; ask for ${what} first.', groups: ['read', 'command', ['edit', { fileRegex: '^src/.*\\.ts$' }]] },
  { slug: 'reviewer', name: 'Reviewer', roleDefinition: 'You review.', groups: ['read', 'mcp'] },
  { slug: 'odd', name: 'Odd', roleDefinition: 'Odd pattern.', groups: [['edit', { fileRegex: '(ab)+\\.md$' }]] },
];

function project(t: Ctx, modes: readonly object[] = MODES): { root: string; env: Record<string, string> } {
  const root = tempDir(t, 'rms-gemini-');
  const home = tempDir(t, 'rms-gemini-home-');
  writeFileSync(join(root, '.roomodes'), JSON.stringify({ customModes: modes }));
  return { root, env: { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), ROO_PROJECT_ROOT: root } };
}

const read = (root: string, file: string): string => readFileSync(join(root, file), 'utf8');
const POLICY = '.gemini/policies/roo-modes.toml';
const SETTINGS = '.gemini/settings.json';

/** The `[[rule]]` tables of the policy file, each as its key = value lines. */
function rules(toml: string): Record<string, string>[] {
  return toml.split('[[rule]]').slice(1).map((block) => Object.fromEntries(block.split('\n').filter((l) => / = /.test(l)).map((l) => [l.slice(0, l.indexOf(' = ')), l.slice(l.indexOf(' = ') + 3)])));
}

test('writes a subagent per mode, the policy with rules per subagent, and names it in settings', async (t) => {
  const { root, env } = project(t);
  const r = await runCli(['export', '--to', 'gemini'], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(readdirSync(join(root, '.gemini', 'agents')).sort(), ['docs-writer.md', 'odd.md', 'reviewer.md', 'src-dev.md']);
  assert.match(r.stdout, /enforcement: Gemini CLI 0\.61 ignores policy files in \.gemini\/policies/);
  assert.match(r.stdout, /enforcement: Overrides: admin-tier rules/);
  assert.match(r.stdout, /not carried over \(odd\): every edit is refused: the edit pattern \(ab\)\+\\\.md\$ has no exact Gemini policy form/);
  assert.match(r.stdout, /not carried over \(Src-Dev\): the pattern \^src\/\.\*\\\.ts\$ depends on where the path starts, so absolute paths and the replace tool are refused/);

  const dev = read(root, '.gemini/agents/src-dev.md');
  assert.match(dev, /^---\n# Exported by roo-modes-server from mode Src-Dev from \.roomodes/);
  assert.match(dev, /\nname: src-dev\n/);
  assert.match(dev, /\ntools:\n(?:  - \S+\n)*  - write_file\n(?:  - \S+\n)*  - run_shell_command\n/);
  assert.doesNotMatch(dev, /- replace\n/, 'replace is left out where the rules refuse it');
  assert.match(dev, /ask for \{what\} first/, 'a ${…} placeholder Gemini would fill is defused');
  assert.match(dev, /matches the regular expression `\^src\/\.\*\\\.ts\$`/);
  assert.doesNotMatch(read(root, '.gemini/agents/odd.md'), /- (write_file|replace)\n/);
  assert.match(read(root, '.gemini/agents/reviewer.md'), /  - "mcp_\*"\n/);

  const policy = read(root, POLICY);
  assert.match(policy, /^# Exported by roo-modes-server/);
  const table = rules(policy);
  const of = (agent: string): Record<string, string>[] => table.filter((x) => x.subagent === `"${agent}"`);
  assert.deepEqual(of('docs-writer').map((x) => [x.toolName, x.argsPattern !== undefined]), [['["write_file", "replace"]', true], ['["run_shell_command"]', false]]);
  assert.deepEqual(of('src-dev').map((x) => [x.toolName, x.argsPattern !== undefined]), [['["replace"]', false], ['["write_file"]', true]]);
  assert.deepEqual(of('reviewer').map((x) => x.toolName), ['["write_file", "replace"]', '["run_shell_command"]']);
  assert.deepEqual(of('odd').map((x) => [x.toolName, x.argsPattern !== undefined]), [['["write_file", "replace"]', false], ['["run_shell_command"]', false]]);
  for (const x of table) {
    assert.equal(x.decision, '"deny"');
    assert.equal(x.priority, '999');
    assert.match(x.denyMessage!, /^"Refused: /);
  }
  assert.match(of('docs-writer')[0]!.denyMessage!, /mode \\"Docs writer\\" \(docs-writer\) may edit only files whose path relative to the project root matches the regular expression \\\\\.md\$/);

  assert.deepEqual(JSON.parse(read(root, SETTINGS)), { policyPaths: [POLICY, '~/.gemini/policies'] });
  for (const file of [POLICY, SETTINGS, ...readdirSync(join(root, '.gemini', 'agents')).map((f) => `.gemini/agents/${f}`)]) {
    for (const place of [root, env.HOME!, REPO.replace(/\/$/, ''), process.execPath]) assert.ok(!read(root, file).includes(place), `${file} names ${place}`);
  }

  const again = await runCli(['export', '--to', 'gemini'], { env, cwd: root });
  assert.equal(again.code, 0, again.stdout);
  assert.doesNotMatch(again.stdout, /wrote|updated/, 'a second export changes nothing');
  assert.equal((await runCli(['export', '--to', 'gemini', '--check'], { env, cwd: root })).code, 0);
  writeFileSync(join(root, POLICY), policy.replace('priority = 999', 'priority = 1'));
  const stale = await runCli(['export', '--to', 'gemini', '--check'], { env, cwd: root });
  assert.equal(stale.code, 1, stale.stdout);
  assert.match(stale.stdout, /stale: .*roo-modes\.toml/);
});

test('an existing settings.json keeps its keys, comments and policy paths, and is backed up', async (t) => {
  const { root, env } = project(t);
  mkdirSync(join(root, '.gemini'));
  const before = '{\n  // team settings\n  "model": { "name": "gemini-3-pro" },\n  "policyPaths": ["team/policies"]\n}\n';
  writeFileSync(join(root, SETTINGS), before);
  const r = await runCli(['export', '--to', 'gemini', '--mode', 'docs-writer'], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const saved = /previous version kept as (\S+)\)/.exec(r.stdout)?.[1];
  assert.ok(saved !== undefined, r.stdout);
  assert.equal(readFileSync(saved, 'utf8'), before);
  const after = read(root, SETTINGS);
  assert.match(after, /\/\/ team settings/);
  assert.match(after, /"model": \{ "name": "gemini-3-pro" \}/);
  assert.match(after, /"policyPaths": \[ "team\/policies", "\.gemini\/policies\/roo-modes\.toml" \]/, 'an existing list is extended, not replaced');
  const check = await runCli(['export', '--to', 'gemini', '--mode', 'docs-writer', '--check'], { env, cwd: root });
  assert.equal(check.code, 0, check.stdout);

  writeFileSync(join(root, SETTINGS), '{ "policyPaths": "nope" }\n');
  const bad = await runCli(['export', '--to', 'gemini', '--mode', 'docs-writer'], { env, cwd: root });
  assert.equal(bad.code, 1, bad.stdout);
  assert.match(bad.stdout, /refused: cannot edit .*settings\.json safely: "policyPaths" is not an array of strings/);
});

test('a partial export keeps the rules of the other exported agents; a gone mode\'s agent may write nothing', async (t) => {
  const { root, env } = project(t);
  assert.equal((await runCli(['export', '--to', 'gemini'], { env, cwd: root })).code, 0);
  const one = await runCli(['export', '--to', 'gemini', '--mode', 'reviewer'], { env, cwd: root });
  assert.equal(one.code, 0, one.stdout);
  assert.match(one.stdout, /unchanged: .*roo-modes\.toml/, 'the other agents\' rules stay');

  writeFileSync(join(root, '.roomodes'), JSON.stringify({ customModes: MODES.filter((m) => m.slug !== 'docs-writer') }));
  const full = await runCli(['export', '--to', 'gemini'], { env, cwd: root });
  assert.equal(full.code, 1, full.stdout);
  assert.match(full.stdout, /left over: .*docs-writer\.md/);
  assert.match(full.stdout, /warning: \.gemini\/agents\/docs-writer\.md is from an earlier export, for a mode that no longer exists: the policy refuses its writes and commands/);
  const left = rules(read(root, POLICY)).filter((x) => x.subagent === '"docs-writer"');
  assert.deepEqual(left.map((x) => [x.toolName, x.argsPattern]), [['["write_file", "replace", "run_shell_command"]', undefined]]);
});
