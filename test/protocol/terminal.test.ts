// The server started by hand in a terminal (stdin a TTY) says on stderr what it is waiting for,
// so it is not taken for a hang; with stdin a pipe (any MCP client) nothing changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { findOnPath } from '../../src/cli/on-path.js';
import { MAIN, tempDir } from './harness.js';
import { runCli } from './cli-run.js';

/**
 * Runs argv with stdin on a fresh pseudo-terminal (python3's pty module) and stdout/stderr on
 * this process's pipes. Whatever is written to the helper's stdin is typed into the terminal once
 * the helper's stdin ends, followed by Ctrl-D, which the terminal turns into end of input.
 */
const ON_A_TTY = [
  'import os, pty, subprocess, sys, threading',
  'master, slave = pty.openpty()',
  'child = subprocess.Popen(sys.argv[1:], stdin=slave)',
  'os.close(slave)',
  // The terminal echoes what is typed; read it away so its buffer never fills.
  'def drain():',
  '    try:',
  '        while os.read(master, 4096): pass',
  '    except OSError: pass',
  'threading.Thread(target=drain, daemon=True).start()',
  'os.write(master, sys.stdin.buffer.read() + b"\\x04")',
  'sys.exit(child.wait())',
].join('\n');

const line = (me: string): string => `roo-modes-server: waiting for an MCP client on stdin (one JSON-RPC message per line; Ctrl-D ends). To try it by hand: ${me} demo, or ${me} --help\n`;
/** python3's own executable (a version manager's shim on PATH may need a shell the test's PATH leaves out). */
function python(): string | null {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '' ? r.stdout.trim() : null;
}
const PYTHON = python();
const MAIN_CJS = MAIN;
const INIT = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tty","version":"1"}}}\n';

/** A PATH with python3's folder and, when `withCommand`, a folder holding a `roo-modes-server` stand-in. */
function pathFor(home: string, withCommand: boolean): string {
  const bin = join(home, 'bin');
  mkdirSync(bin);
  if (withCommand) { writeFileSync(join(bin, 'roo-modes-server'), '#!/bin/sh\n'); chmodSync(join(bin, 'roo-modes-server'), 0o755); }
  return [bin, dirname(PYTHON!)].join(delimiter);
}

for (const [withCommand, me] of [[true, 'roo-modes-server'], [false, `node ${MAIN_CJS}`]] as const) {
test(`in a terminal the server says on stderr, in one line, that it waits for a client and how to try it (${withCommand ? 'roo-modes-server on PATH' : 'not on PATH: node and the main file'})`, async (t) => {
  if (PYTHON === null) { t.skip('python3 is needed for the pseudo-terminal'); return; }
  // The hint names a command that runs here: roo-modes-server where PATH has it, else node and this checkout's main file.
  if (!withCommand && findOnPath('roo-modes-server', { PATH: dirname(PYTHON) }) !== null) { t.skip('python3\'s folder holds a roo-modes-server'); return; }
  const LINE = line(me);
  const home = tempDir(t, 'rms-tty-home-');
  const child = spawn(PYTHON, ['-c', ON_A_TTY, process.execPath, MAIN], { cwd: home, env: { ...process.env, HOME: home, ROO_MODES_LOG_LEVEL: '', PATH: pathFor(home, withCommand) }, stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => { child.kill('SIGKILL'); });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => { stdout += s; });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  // The line comes before any input: a person at the terminal sees it at once.
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no waiting line within 20 s; stderr: ${stderr}`)), 20_000);
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
      if (stderr.includes('\n')) { clearTimeout(timer); resolve(); }
    });
  });
  assert.equal(stderr, LINE);
  assert.equal(stdout, '', 'nothing on stdout before a request');
  // Typed requests are still served, and Ctrl-D ends the server cleanly.
  child.stdin.end(INIT);
  assert.equal(await exited, 0, stderr);
  assert.equal(stderr, LINE, 'that one line and nothing else');
  const answer = JSON.parse(stdout.trim()) as { id: number; result: { serverInfo: { name: string } } };
  assert.deepEqual([answer.id, answer.result.serverInfo.name], [1, 'roo-modes-server']);
});
}

test('with stdin a pipe (an MCP client) there is no such line, nor anything else on stderr', async () => {
  const r = await runCli([], { input: INIT, env: { ROO_MODES_LOG_LEVEL: '' } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(JSON.parse(r.stdout.trim()).id, 1);
});
