// The exported plugin and its decision code in Bun, the runtime OpenCode and Kilo run plugins in
// (OpenCode's own binary acts as Bun with BUN_BE_BUN=1): the same script in Bun and in Node must
// give the same decisions over patterns and paths where the engines could differ.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentCommand, missingAgents } from './agents.js';
import { exportModes, newProject } from './rig.js';

const skip = missingAgents(['opencode']);

/** fileRegex values: ordinary ones, and ones V8, its linear engine and JavaScriptCore read differently. */
const PATTERNS = [
  '^docs/', '\\.md$', '^(src|lib)/.*\\.ts$', '^[^/]+\\.md$', '\\.md$|^docs/', 'é\\.md$', '\\u00e9\\.md$', '\\p{L}+\\.md$',
  '(?i:readme)\\.md$', '(?-i:a)', 'x(?=y)', 'a(?<!b)c', '(a)\\1', '[a-z]{2,20}\\.md$', '(a+)+$', '(a|aa)+$', '\\k<n>(?<n>a)',
  '[', 'a{2', '\\cA', '[\\d-z]', '(?<n>a)(?<n>b)', '\\.(md|MD)$', '^.{0,16}$',
];
/** Paths as an agent passes them: relative, absolute inside and outside, climbing, Windows-style, unicode. */
const PATHS = ['notes.md', 'docs/a.txt', 'docs/é.md', 'é.md', 'README.md', 'src/a.ts', 'lib/x/y.ts', 'xy', 'abc', 'aa',
  '../notes.md', 'docs/../notes.md', 'docs\\a.md', '/etc/passwd', 'ROOT/notes.md', 'ROOT/../x.md', 'a.MD', ''];

/** Runs in both runtimes: every mode × path through the decision file, then the plugin itself on two calls. */
const SCRIPT = `
import { createRequire } from 'node:module';
const [root, count, pathsJson] = process.argv.slice(2);
const paths = JSON.parse(pathsJson).map((p) => p.replace('ROOT', root));
const { createDecider } = createRequire(import.meta.url)(root + '/.opencode/roo-modes/decision.cjs');
const decider = createDecider(root);
const out = [];
for (let i = 0; i < Number(count); i++) {
  for (const p of paths) out.push(['p' + i, p, await decider.decide('p' + i, 'write', { filePath: p, content: 'x' })]);
}
const { RooModesPlugin } = await import(root + '/.opencode/plugins/roo-modes.js');
const hooks = await RooModesPlugin({ directory: root });
await hooks['chat.params']({ sessionID: 's', agent: 'notes-writer' });
for (const file of ['notes.md', 'src/app.ts']) {
  try { await hooks['tool.execute.before']({ tool: 'write', sessionID: 's', callID: 'c' }, { args: { filePath: root + '/' + file, content: 'x' } }); out.push(['plugin', file, 'allowed']); }
  catch (err) { out.push(['plugin', file, err.message]); }
}
process.stdout.write(JSON.stringify(out));
`;

test('the plugin and its decision code decide in Bun exactly as in Node', { skip }, async (t) => {
  const modes = PATTERNS.map((p, i) => `  - slug: p${i}\n    name: P${i}\n    roleDefinition: Pattern ${i}.\n    groups:\n      - read\n      - - edit\n        - fileRegex: ${JSON.stringify(p)}\n`).join('');
  const p = newProject(t);
  await exportModes(p, ['--to', 'opencode', '--plugin', '--mode', 'notes-writer']);
  writeFileSync(join(p.root, '.roomodes'), `${readFileSync(join(p.root, '.roomodes'), 'utf8')}${modes}`);
  mkdirSync(join(p.root, 'docs'));
  const script = join(p.home, 'decide.mjs');
  writeFileSync(script, SCRIPT);
  const args = [script, p.root, String(PATTERNS.length), JSON.stringify(PATHS)];
  const run = (argv: string[], env: NodeJS.ProcessEnv): unknown[] => {
    const r = spawnSync(argv[0]!, [...argv.slice(1), ...args], { env: { PATH: process.env.PATH, HOME: p.home, ...env }, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, `${argv.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as unknown[];
  };
  const inBun = run([agentCommand('opencode')![0]!], { BUN_BE_BUN: '1' });
  const inNode = run([process.execPath], {});
  assert.equal(inBun.length, PATTERNS.length * PATHS.length + 2);
  // A refusal's reason word for word; a failure up to the engines' own wording of why a pattern does
  // not compile (the problems list), so the same modes must be in force in both.
  const same = (row: unknown): unknown => {
    const [slug, path, d] = row as [string, string, { fail?: string }];
    return [slug, path, typeof d === 'object' && d.fail !== undefined ? { fail: d.fail.split('; problems in the mode files: ')[0] } : d];
  };
  for (const [i, row] of inNode.entries()) assert.deepEqual(same(inBun[i]), same(row), `Bun and Node differ on ${JSON.stringify(row).slice(0, 300)}`);
  const plugin = inBun.slice(-2) as [string, string, string][];
  assert.equal(plugin[0]![2], 'allowed');
  assert.match(plugin[1]![2], /^Mode notes-writer \(roo-modes-server\): .*Got: src\/app\.ts$/);
  // Some patterns load and decide, others are refused (the mode is then unknown): both kinds are compared.
  const unknown = inNode.filter((r) => JSON.stringify(r).includes('unknown mode')).length;
  assert.ok(unknown > 0 && unknown < inNode.length - PATHS.length * 3, `${unknown} of ${inNode.length} decisions name an unknown mode`);
});
