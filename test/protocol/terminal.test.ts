// The server started by hand in a terminal (stdin a TTY) says on stderr what it is waiting for,
// so it is not taken for a hang; with stdin a pipe (any MCP client) nothing changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
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

const LINE = 'roo-modes-server: waiting for an MCP client on stdin (one JSON-RPC message per line; Ctrl-D ends). To try it by hand: roo-modes-server demo, or roo-modes-server --help\n';
const INIT = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tty","version":"1"}}}\n';

test('in a terminal the server says on stderr, in one line, that it waits for a client and how to try it', async (t) => {
  const home = tempDir(t, 'rms-tty-home-');
  const child = spawn('python3', ['-c', ON_A_TTY, process.execPath, MAIN], { cwd: home, env: { ...process.env, HOME: home, ROO_MODES_LOG_LEVEL: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
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

test('with stdin a pipe (an MCP client) there is no such line, nor anything else on stderr', async () => {
  const r = await runCli([], { input: INIT, env: { ROO_MODES_LOG_LEVEL: '' } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(JSON.parse(r.stdout.trim()).id, 1);
});
