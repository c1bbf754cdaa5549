// The check file export writes beside Claude Code's and Cursor's hooks, and the plugin's: --check
// names a copy of another version or one edited by hand, a re-export without flags keeps the
// launcher it wrote, and --dry-run does not print the check whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, tempDir } from './harness.js';
import { runCli } from './cli-run.js';

type Ctx = { after(fn: () => void): void };

const ROOMODES = 'customModes:\n  - slug: docs-writer\n    name: Docs writer\n    roleDefinition: You write the docs.\n    groups:\n      - read\n      - - edit\n        - fileRegex: ^docs/\n';
const BUILT = readFileSync(join(MAIN, '..', 'roo-modes-check.cjs'), 'utf8');

function project(t: Ctx): { root: string; env: Record<string, string> } {
  const root = tempDir(t, 'rms-check-');
  const home = tempDir(t, 'rms-check-home-');
  writeFileSync(join(root, '.roomodes'), ROOMODES);
  return { root, env: { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code'), ROO_PROJECT_ROOT: root } };
}

for (const [target, extra, path] of [
  ['claude-code', [], '.claude/hooks/roo-modes-check.cjs'],
  ['cursor', ['--enforce', 'docs-writer'], '.cursor/hooks/roo-modes-check.cjs'],
  ['claude-code-plugin', ['--out', 'plugin'], 'plugin/hooks/roo-modes-check.cjs'],
] as const) {
  test(`${target}: --check names a check file of another version, one edited by hand and a missing one, and a re-export mends each`, async (t) => {
    const { root, env } = project(t);
    const args = ['export', '--to', target, ...extra];
    const first = await runCli(args, { env, cwd: root });
    assert.equal(first.code, 0, first.stdout);
    const file = join(root, path);
    assert.equal(readFileSync(file, 'utf8'), BUILT, 'the built check, byte for byte');
    const [, version, hash] = /^\/\/ roo-modes-check (\S+) sha256:([0-9a-f]{64}) /.exec(BUILT)!;
    assert.equal((await runCli([...args, '--check'], { env, cwd: root })).code, 0);

    // Another release's file: its own header, its own (intact) code.
    const code = '"use strict";\nmodule.exports = {};\n';
    const { createHash } = await import('node:crypto');
    const older = `// roo-modes-check 0.0.9 sha256:${createHash('sha256').update(code).digest('hex')} Exported by roo-modes-server; export again rather than editing.\n// an older check\n${code}`;
    const cases: [string | null, RegExp][] = [
      [older, new RegExp(`stale: .*roo-modes-check\\.cjs \\(roo-modes-check 0\\.0\\.9 sha256:[0-9a-f]{12}; this export writes ${version!.replace(/\./g, '\\.')} sha256:${hash!.slice(0, 12)}\\)`)],
      [BUILT.replace('hook claude-code|cursor', 'hook claude-code'), /stale: .*roo-modes-check\.cjs \(its comment lines were edited\)/],
      [BUILT.replace('"use strict";', '"use strict"; /* mine */'), new RegExp(`stale: .*roo-modes-check\\.cjs \\(edited since export ${version!.replace(/\./g, '\\.')} wrote it: its code no longer hashes to its sha256:${hash!.slice(0, 12)}\\)`)],
      [null, /missing: .*roo-modes-check\.cjs/],
    ];
    for (const [text, why] of cases) {
      if (text === null) (await import('node:fs')).rmSync(file); else writeFileSync(file, text);
      const check = await runCli([...args, '--check'], { env, cwd: root });
      assert.equal(check.code, 1, check.stdout);
      assert.match(check.stdout, why);
      assert.match(check.stdout, /Some files are not what export would write/);
      const mended = await runCli(args, { env, cwd: root });
      assert.equal(mended.code, 0, mended.stdout);
      assert.equal(readFileSync(file, 'utf8'), BUILT);
    }
    // A file of the same name that no export wrote is not replaced without --force.
    writeFileSync(file, 'my own script\n');
    const refused = await runCli(args, { env, cwd: root });
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /refused: .*roo-modes-check\.cjs exists and was not written by roo-modes-server export/);
  });
}

test('a re-export without flags keeps the launcher the earlier export wrote; --hook vendored goes back, and the unused check is left over', async (t) => {
  const { root, env } = project(t);
  const launcher = '${CLAUDE_PROJECT_DIR}/node_modules/.bin/roo-modes-server';
  const agent = join(root, '.claude', 'agents', 'docs-writer.md');
  const check = join(root, '.claude', 'hooks', 'roo-modes-check.cjs');
  assert.equal((await runCli(['export', '--to', 'claude-code', '--settings'], { env, cwd: root })).code, 0);
  assert.ok(existsSync(check));
  const chosen = await runCli(['export', '--to', 'claude-code', '--settings', '--hook-command', launcher], { env, cwd: root });
  assert.equal(chosen.code, 1, 'the check file no hook runs is a left-over');
  assert.match(chosen.stdout, /left over: .*roo-modes-check\.cjs \(no hook runs it now: delete it, or export with --hook vendored\)/);
  (await import('node:fs')).rmSync(check);
  const text = readFileSync(agent, 'utf8');
  assert.match(text, /command: "\$\{CLAUDE_PROJECT_DIR\}\/node_modules\/\.bin\/roo-modes-server"/);
  for (const args of [['--settings'], ['--settings', '--check'], []]) {
    const again = await runCli(['export', '--to', 'claude-code', ...args], { env, cwd: root });
    assert.equal(again.code, 0, again.stdout);
    assert.match(again.stdout, /unchanged: .*docs-writer\.md/);
    assert.match(again.stdout, /the hooks keep what the earlier export wrote \(read from .*docs-writer\.md\): \$\{CLAUDE_PROJECT_DIR\}\/node_modules\/\.bin\/roo-modes-server; --hook or --hook-command chooses another/);
    assert.equal(existsSync(check), false);
  }
  // Without --settings the settings hook is not rewritten, and the report says it is the one that runs there.
  const vendored = await runCli(['export', '--to', 'claude-code', '--hook', 'vendored'], { env, cwd: root });
  assert.equal(vendored.code, 0, vendored.stdout);
  assert.match(vendored.stdout, /warning: .*settings\.json holds a hook an export wrote that runs \$\{CLAUDE_PROJECT_DIR\}\/node_modules\/\.bin\/roo-modes-server, not node \$\{CLAUDE_PROJECT_DIR\}\/\.claude\/hooks\/roo-modes-check\.cjs/);
  assert.doesNotMatch(vendored.stdout, /skips the hooks in agent files/, 'the settings hook covers untrusted folders');
  assert.equal(readFileSync(check, 'utf8'), BUILT);
  const both = await runCli(['export', '--to', 'claude-code', '--settings'], { env, cwd: root });
  assert.equal(both.code, 0, both.stdout);
  assert.doesNotMatch(both.stdout, /warning/);
});

test('--dry-run names the check file with its first line, without printing the code', async (t) => {
  const { root, env } = project(t);
  const r = await runCli(['export', '--to', 'claude-code', '--dry-run'], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /==> .*roo-modes-check\.cjs \(would write\) <==\n\/\/ roo-modes-check \S+ sha256:[0-9a-f]{64} .*\n\(\d+ bytes; not shown\)/);
  assert.ok(r.stdout.length < 20_000, `${r.stdout.length} characters printed`);
  assert.equal(existsSync(join(root, '.claude')), false);
});

test('a global mode exported on request (--include-global), which a teammate may not have, is named in a warning', async (t) => {
  const { root, env } = project(t);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(env.ROO_CONFIG_DIR!, { recursive: true });
  writeFileSync(join(env.ROO_CONFIG_DIR!, 'custom_modes.yaml'), ROOMODES.replace('docs-writer', 'my-notes'));
  const r = await runCli(['export', '--to', 'claude-code', '--settings', '--include-global'], { env, cwd: root });
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /warning: mode my-notes comes from your global mode files, which the hooks read on each machine: where one is missing, the agent's hooks \(its file's and the by-agent settings hook\) cannot judge and block every edit; put it in the project's \.roomodes, or export --to claude-code-plugin/);
  assert.doesNotMatch(r.stdout, /warning: mode docs-writer/);
});
