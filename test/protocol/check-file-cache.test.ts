import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, tempDir } from './harness.js';
import { CODE_CACHE_GENERATIONS, MAX_CODE_CACHE_BYTES } from '../../src/hook/check-loader.js';

// The self-contained check keeps its code in one block comment and compiles it through V8's code
// cache in the user's cache folder (src/hook/check-loader.ts). Whatever happens to that cache, the
// answer is the same; a file whose code was altered to leave its comment is refused with exit 2.

const BUILT = join(MAIN, '..', 'roo-modes-check.cjs');

function rig(t: { after(fn: () => void): void }): { root: string; cacheHome: string; folder: string; check: string; run(file: string, check?: string): { code: number | null; stdout: string; stderr: string } } {
  const root = tempDir(t, 'rms-check-cache-');
  writeFileSync(join(root, '.roomodes'), 'customModes:\n  - slug: docs-writer\n    name: Docs\n    roleDefinition: x\n    groups: [read, [edit, {fileRegex: "^docs/"}]]\n');
  mkdirSync(join(root, '.git'));
  // A copy in the project, as export writes it: the cache must not depend on where the file is.
  const check = join(root, '.claude', 'hooks', 'roo-modes-check.cjs');
  mkdirSync(join(check, '..'), { recursive: true });
  copyFileSync(BUILT, check);
  const cacheHome = join(root, 'cache-home');
  const folder = join(cacheHome, 'roo-modes-server', 'hook-code');
  const run = (file: string, which = check): { code: number | null; stdout: string; stderr: string } => {
    const input = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Write', cwd: root, tool_input: { file_path: join(root, file), content: '' } });
    const r = spawnSync(process.execPath, [which, 'hook', 'claude-code', '--mode', 'docs-writer', '--project-root', root, '--config-dir', join(root, 'no-config')], {
      input, encoding: 'utf8', env: { ...process.env, HOME: join(root, 'home'), XDG_CACHE_HOME: cacheHome, NODE_OPTIONS: '' },
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  return { root, cacheHome, folder, check, run };
}

function judged(r: { code: number | null; stdout: string; stderr: string }, allowed: boolean, why: string): void {
  assert.equal(r.code, 0, `${why}: ${r.stderr}`);
  if (allowed) assert.equal(r.stdout, '', why);
  else assert.match(r.stdout, /"permissionDecision":"deny".*\^docs\//, why);
}

const onlyFile = (folder: string): string => {
  const names = readdirSync(folder);
  assert.equal(names.length, 1, `one cache file: ${names.join(', ')}`);
  return join(folder, names[0]!);
};

test('the first calls leave a cache of the check\'s code, private to the user, holding what each compiled; then it is only used', (t) => {
  const { folder, run } = rig(t);
  judged(run('src/a.ts'), false, 'first call, no cache yet: refused by the pattern alone');
  const file = onlyFile(folder);
  assert.equal(statSync(folder).mode & 0o777, 0o700);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const generation = (): number => { const held = readFileSync(file); return held[4 + held.readUInt32LE(0)]!; };
  assert.equal(generation(), 1);
  const first = statSync(file).size;
  // An allowed path walks the file system: code the first call never ran, added to the cache.
  judged(run('docs/a.md'), true, 'from the cache, a path walked');
  assert.equal(generation(), 2);
  assert.ok(statSync(file).size > first, `the cache grew: ${first} → ${statSync(file).size}`);
  for (let g = 3; g <= CODE_CACHE_GENERATIONS; g++) judged(run('docs/b.md'), true, `generation ${g}`);
  assert.equal(generation(), CODE_CACHE_GENERATIONS);
  const made = statSync(file);
  judged(run('src/a.ts'), false, 'from the cache');
  judged(run('docs/b.md'), true, 'from the cache');
  const after = statSync(file);
  assert.equal(after.ino, made.ino, 'not written again');
  assert.equal(after.mtimeMs, made.mtimeMs);
});

test('a damaged cache, or one made from other code of the same length, is not run: the answer stands and the cache is made again', (t) => {
  const { folder, check, run } = rig(t);
  judged(run('docs/a.md'), true, 'first call');
  const file = onlyFile(folder);
  const good = readFileSync(file);
  const codeBytes = good.readUInt32LE(0);
  // V8's part damaged (a checksum catches it) and the code's copy changed (our comparison does).
  const damaged = Buffer.from(good);
  for (let i = 4 + codeBytes + 64; i < damaged.length; i += 97) damaged[i] = damaged[i]! ^ 0x5a;
  const otherCode = Buffer.from(good);
  otherCode[4 + codeBytes - 2] = otherCode[4 + codeBytes - 2]! ^ 0x01;
  for (const [what, bytes] of [['damaged', damaged], ['made for other code', otherCode]] as const) {
    writeFileSync(file, bytes);
    judged(run('src/a.ts'), false, what);
    judged(run('docs/a.md'), true, `${what}, then the new cache`);
    assert.ok(!readFileSync(onlyFile(folder)).equals(bytes), `${what}: written again`);
    assert.deepEqual(readFileSync(onlyFile(folder)).subarray(0, 4 + codeBytes), good.subarray(0, 4 + codeBytes), `${what}: the new cache holds this file's code`);
  }
  // One past the size bound is not read at all (a sparse file: nothing is written but its size).
  truncateSync(onlyFile(folder), MAX_CODE_CACHE_BYTES + 1);
  judged(run('src/a.ts'), false, 'a cache past the bound');
  assert.ok(statSync(onlyFile(folder)).size < MAX_CODE_CACHE_BYTES, 'made again');
  // The copy beside the build and the one in the project share their cache: same code, same file.
  judged(run('src/a.ts', BUILT), false, 'the built file');
  assert.equal(readdirSync(folder).length, 1);
  assert.ok(check !== BUILT);
});

test('a cache folder others may write to is not used, and a file where it should be is no obstacle', (t) => {
  const { folder, cacheHome, run } = rig(t);
  mkdirSync(folder, { recursive: true });
  chmodSync(folder, 0o777);
  judged(run('src/a.ts'), false, 'a folder open to others');
  judged(run('docs/a.md'), true, 'a folder open to others');
  assert.deepEqual(readdirSync(folder), [], 'nothing written there');
  const blocked = rig(t);
  mkdirSync(join(blocked.cacheHome, 'roo-modes-server'), { recursive: true });
  writeFileSync(blocked.folder, 'not a folder');
  judged(blocked.run('src/a.ts'), false, 'a file in the folder\'s place');
  assert.ok(cacheHome !== blocked.cacheHome);
});

test('a check file whose code no longer stays in its comment is refused with exit 2, naming the line, though a cache of its code is there', (t) => {
  const { check, folder, run } = rig(t);
  judged(run('docs/a.md'), true, 'the file as exported, which leaves its cache');
  assert.equal(readdirSync(folder).length, 1);
  const text = readFileSync(check, 'utf8');
  const lines = text.split('\n');
  const opens = lines.indexOf('/*');
  // Closed and opened again: still a comment to Node, but the code is no longer what it was.
  const at = lines.findIndex((l, i) => i > opens + 100 && l.startsWith('const '));
  lines[at] = `*/ /* ${lines[at]}`;
  writeFileSync(check, lines.join('\n'));
  const r = run('docs/a.md');
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, new RegExp(`^roo-modes-check: cannot start: line ${at + 1} of .*roo-modes-check\\.cjs ends the comment that holds the check's code \\("\\*/"\\); export again rather than editing it\\n$`));
  // Its comment's end cut off, the file is no JavaScript: Node refuses it (the exported hooks are
  // set to block when the hook fails); with the end there but the line before it gone, the loader does.
  writeFileSync(check, text.slice(0, -3));
  const cut = run('docs/a.md');
  assert.notEqual(cut.code, 0, cut.stderr);
  assert.match(cut.stderr, /SyntaxError/);
  writeFileSync(check, `${lines.slice(0, opens + 1).join('\n')}\n*/\n`);
  const empty = run('docs/a.md');
  assert.equal(empty.code, 2, empty.stderr);
  assert.match(empty.stderr, /is not a whole check file/);
});

test('a copy with CR LF line ends (as Git may write it on Windows) judges alike; one whose code was emptied blocks', (t) => {
  const { check, run } = rig(t);
  const text = readFileSync(check, 'utf8');
  writeFileSync(check, text.replaceAll('\n', '\r\n'));
  judged(run('src/a.ts'), false, 'CR LF');
  judged(run('docs/a.md'), true, 'CR LF');
  // Still a whole file, and code that compiles, but no check: not a silent "no objection".
  const lines = text.split('\n');
  writeFileSync(check, `${lines.slice(0, lines.indexOf('/*') + 1).join('\n')}\n"use strict";\n*/\n`);
  const r = run('src/a.ts');
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^roo-modes-check: cannot start: .*roo-modes-check\.cjs holds no check \(its code defines no runCheckFile\); export again to replace it\n$/);
});

test('copies with LF and with CR LF line ends each keep a cache of their own, instead of making one shared cache again in turn', (t) => {
  const { root, check, folder, run } = rig(t);
  const crlf = join(root, '.cursor', 'hooks', 'roo-modes-check.cjs');
  mkdirSync(join(crlf, '..'), { recursive: true });
  writeFileSync(crlf, readFileSync(check, 'utf8').replaceAll('\n', '\r\n'));
  // Enough runs of each for both caches to be grown up (each young one is made again by its next runs).
  for (let i = 0; i <= CODE_CACHE_GENERATIONS; i++) {
    judged(run('src/a.ts', check), false, `LF, run ${i}`);
    judged(run('src/a.ts', crlf), false, `CR LF, run ${i}`);
  }
  const files = (): string[] => readdirSync(folder).map((n) => { const s = statSync(join(folder, n)); return `${n} ${s.ino} ${s.mtimeMs}`; }).sort();
  const settled = files();
  assert.equal(settled.length, 2, settled.join('\n'));
  judged(run('src/a.ts', check), false, 'LF, settled');
  judged(run('src/a.ts', crlf), false, 'CR LF, settled');
  assert.deepEqual(files(), settled, 'neither cache was written again');
});
