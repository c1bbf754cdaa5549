// The walk from a working directory up to the project (src/paths/project-root.ts) and the CLI's
// choice between a named root and the walk (src/cli/project-root.ts), on real folders and on a
// made-up file system for the stop conditions no temp folder can show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { findProjectRoot, rootNotice, type EntryKind } from '../../src/paths/project-root.js';
import { cliProjectRoot } from '../../src/cli/project-root.js';

function tree(t: { after(fn: () => void): void }): string {
  const base = mkdtempSync(join(tmpdir(), 'rms-root-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  return base;
}

/** A file system of named entries only: every other path is missing. */
const fake = (entries: Record<string, EntryKind>) => (path: string): EntryKind => entries[path] ?? 'missing';

test('finds the nearest folder with .roomodes from a folder nested below it', (t) => {
  const base = tree(t);
  const deep = join(base, 'proj', 'src', 'a', 'b');
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(base, 'proj', '.roomodes'), 'customModes: []\n');
  assert.deepEqual(findProjectRoot(deep), { root: join(base, 'proj'), marker: '.roomodes', start: deep });
});

test('the nearest marked folder wins: a nested project inside a git repository is its own', (t) => {
  const base = tree(t);
  mkdirSync(join(base, 'repo', '.git'), { recursive: true });
  mkdirSync(join(base, 'repo', 'packages', 'web', '.roo'), { recursive: true });
  mkdirSync(join(base, 'repo', 'packages', 'web', 'src'), { recursive: true });
  assert.equal(findProjectRoot(join(base, 'repo', 'packages', 'web', 'src')).root, join(base, 'repo', 'packages', 'web'));
  assert.equal(findProjectRoot(join(base, 'repo', 'packages')).root, join(base, 'repo'));
});

test('.git as a file (a worktree or submodule) marks the project, as git reads it', (t) => {
  const base = tree(t);
  mkdirSync(join(base, 'wt', 'lib'), { recursive: true });
  writeFileSync(join(base, 'wt', '.git'), 'gitdir: /elsewhere/.git/worktrees/wt\n');
  assert.deepEqual(findProjectRoot(join(base, 'wt', 'lib')), { root: join(base, 'wt'), marker: '.git', start: join(base, 'wt', 'lib') });
});

test('a folder named .roomodes or a file named .roo marks nothing', (t) => {
  const base = tree(t);
  mkdirSync(join(base, 'outer', '.git'), { recursive: true });
  mkdirSync(join(base, 'outer', 'inner', '.roomodes'), { recursive: true });
  writeFileSync(join(base, 'outer', 'inner', '.roo'), 'not a folder');
  assert.equal(findProjectRoot(join(base, 'outer', 'inner')).root, join(base, 'outer'));
});

test('the working directory itself counts when it holds a marker', (t) => {
  const base = tree(t);
  writeFileSync(join(base, '.roomodes'), '');
  const found = findProjectRoot(base);
  assert.deepEqual(found, { root: base, marker: '.roomodes', start: base });
  assert.equal(rootNotice(found, 'x'), null, 'nothing to say when the project is where the command runs');
});

test('stops at the filesystem root: with no marker anywhere, the start folder is the project', () => {
  const start = `${sep}a${sep}b${sep}c`;
  const asked: string[] = [];
  const found = findProjectRoot(start, { kindOf: (p) => { asked.push(p); return 'missing'; } });
  assert.deepEqual(found, { root: start, marker: null, start });
  // Three markers at each of /a/b/c, /a/b, /a and /, and nothing above the root.
  assert.equal(asked.length, 12);
  assert.deepEqual(asked.slice(-3), [`${sep}.roomodes`, `${sep}.roo`, `${sep}.git`]);
});

test('a marker at the filesystem root is found', () => {
  const found = findProjectRoot(`${sep}x${sep}y`, { kindOf: fake({ [`${sep}.git`]: 'dir' }) });
  assert.deepEqual(found, { root: sep, marker: '.git', start: `${sep}x${sep}y` });
});

test("the home folder's .roo/ (Roo Code's global rules) does not make home a project; its .git does", () => {
  const home = `${sep}home${sep}me`;
  const start = join(home, 'notes', 'today');
  const onlyRoo = findProjectRoot(start, { homeDir: home, kindOf: fake({ [join(home, '.roo')]: 'dir' }) });
  assert.deepEqual(onlyRoo, { root: start, marker: null, start });
  const withGit = findProjectRoot(start, { homeDir: home, kindOf: fake({ [join(home, '.roo')]: 'dir', [join(home, '.git')]: 'dir' }) });
  assert.equal(withGit.root, home);
  assert.equal(withGit.marker, '.git');
  // Below home, a project's own .roo/ still counts.
  assert.equal(findProjectRoot(start, { homeDir: home, kindOf: fake({ [join(home, 'notes', '.roo')]: 'dir' }) }).root, join(home, 'notes'));
});

test('an entry that cannot be looked at marks nothing, and the walk goes on above it', () => {
  const found = findProjectRoot(`${sep}p${sep}q`, { kindOf: fake({ [`${sep}p${sep}q${sep}.roomodes`]: 'other', [`${sep}p${sep}.git`]: 'dir' }) });
  assert.equal(found.root, `${sep}p`);
});

test('rootNotice names the root, the marker and the start, and the override', () => {
  const line = rootNotice({ root: '/r', marker: '.git', start: '/r/s' }, 'roo-modes-server');
  assert.equal(line, 'roo-modes-server: using the project at /r (found .git above /r/s; --project-root overrides)\n');
});

test('the CLI uses a named root as given (flag, then ROO_PROJECT_ROOT) without walking, else walks and says so once', (t) => {
  const base = tree(t);
  const sub = join(base, 'proj', 'src');
  mkdirSync(sub, { recursive: true });
  writeFileSync(join(base, 'proj', '.roomodes'), '');
  const said: string[] = [];
  const io = (env: NodeJS.ProcessEnv) => ({ env: { HOME: base, ...env }, err: (s: string) => { said.push(s); } });
  assert.equal(cliProjectRoot('elsewhere', io({ ROO_PROJECT_ROOT: '/ignored' }), sub), join(sub, 'elsewhere'));
  assert.equal(cliProjectRoot(undefined, io({ ROO_PROJECT_ROOT: sub }), base), sub);
  assert.deepEqual(said, [], 'a named root is not announced');
  assert.equal(cliProjectRoot(undefined, io({}), sub), join(base, 'proj'));
  assert.equal(said.length, 1);
  assert.match(said[0]!, /using the project at .*proj \(found \.roomodes above .*src;/);
  assert.equal(cliProjectRoot(undefined, io({ ROO_PROJECT_ROOT: '' }), join(base, 'proj')), join(base, 'proj'));
  assert.equal(said.length, 1, 'no line when the project is the working directory (an empty ROO_PROJECT_ROOT counts as unset)');
});
