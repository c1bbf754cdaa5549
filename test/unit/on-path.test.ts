// Finding a command through PATH as a client would (src/cli/on-path.ts), the hand-run command the
// start-up hint names, and the hint printed when a written file names a command PATH lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { findOnPath, notOnPathHint, selfCommand } from '../../src/cli/on-path.js';

function dirs(t: { after(fn: () => void): void }): { a: string; b: string; base: string } {
  const base = mkdtempSync(join(tmpdir(), 'rms-path-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const a = join(base, 'a');
  const b = join(base, 'b');
  mkdirSync(a);
  mkdirSync(b);
  return { a, b, base };
}

const tool = (dir: string, name: string, mode: number): string => {
  const file = join(dir, name);
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, mode);
  return file;
};

test('finds the first executable file of that name along PATH, skipping one that cannot run', (t) => {
  if (process.platform === 'win32') { t.skip('execute bits are POSIX'); return; }
  const { a, b } = dirs(t);
  tool(a, 'roo-modes-server', 0o644);
  const runs = tool(b, 'roo-modes-server', 0o755);
  mkdirSync(join(a, 'folder-not-file'));
  assert.equal(findOnPath('roo-modes-server', { PATH: [a, b].join(delimiter) }), runs);
  assert.equal(findOnPath('folder-not-file', { PATH: a }), null, 'a folder is not a command');
  assert.equal(findOnPath('roo-modes-server', { PATH: a }), null, 'a file without the execute bit is not a command');
  assert.equal(findOnPath('roo-modes-server', {}), null, 'no PATH at all finds nothing');
  assert.equal(findOnPath(runs, { PATH: b }), null, 'a path is not looked up in PATH');
});

test('on Windows the endings of PATHEXT are tried and no execute bit is needed', (t) => {
  const { a } = dirs(t);
  const cmd = tool(a, 'roo-modes-server.CMD', 0o644);
  assert.equal(findOnPath('roo-modes-server', { Path: `${a};`, PATHEXT: '.EXE;.CMD' }, 'win32'), cmd);
  assert.equal(findOnPath('roo-modes-server', { Path: a, PATHEXT: '.EXE' }, 'win32'), null);
});

test('the hand-run command is roo-modes-server where PATH has it, else node and the main file, relative below the working directory', (t) => {
  if (process.platform === 'win32') { t.skip('execute bits are POSIX'); return; }
  const { a, base } = dirs(t);
  const main = join(base, 'clone', 'dist', 'main.cjs');
  assert.equal(selfCommand({ PATH: a }, main, join(base, 'clone')), 'node dist/main.cjs');
  assert.equal(selfCommand({ PATH: a }, main, join(base, 'elsewhere')), `node ${main}`);
  tool(a, 'roo-modes-server', 0o755);
  assert.equal(selfCommand({ PATH: a }, main, join(base, 'clone')), 'roo-modes-server');
});

test('the not-on-PATH hint says what cannot start and names both fixes with this clone\'s folder', () => {
  const text = notOnPathHint('roo-modes-server add-to-mcp-config', 'roo-modes-server', 'this entry', '/opt/clone/dist/main.cjs');
  const lines = text.trimEnd().split('\n');
  assert.match(lines[0]!, /^roo-modes-server add-to-mcp-config: warning: this entry runs "roo-modes-server" found on PATH, and there is no "roo-modes-server" on PATH here/);
  assert.match(text, /npm install -g \/opt\/clone, or npm link in that folder/);
  assert.match(text, /node \/opt\/clone\/dist\/main\.cjs/);
  assert.ok(text.endsWith('\n'));
  const bare = notOnPathHint('x', 'my-launcher', 'the hook', undefined);
  assert.match(bare, /no "my-launcher" on PATH here/);
  assert.doesNotMatch(bare, /undefined/);
});
