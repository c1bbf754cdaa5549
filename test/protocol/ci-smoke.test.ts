// Runs the CI smoke-test example exactly as docs/integration.md shows it (the shell block between
// the ci-smoke marker comments) against the built server, so the document and the test cannot drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN, REPO } from './harness.js';

const BEGIN = '<!-- ci-smoke:begin -->';
const END = '<!-- ci-smoke:end -->';

/** The shell code of the fenced block between the markers in docs/integration.md. */
function smokeScript(): string {
  const doc = readFileSync(join(REPO, 'docs', 'integration.md'), 'utf8');
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  assert.ok(from >= 0 && to > from, 'docs/integration.md has the ci-smoke markers in order');
  const block = /```(?:sh|bash)\n([\s\S]*?)\n```/.exec(doc.slice(from + BEGIN.length, to));
  assert.ok(block, 'a ```sh block sits between the ci-smoke markers');
  return block[1]!;
}

interface Run { code: number | null; stdout: string; stderr: string }

/** Runs the script in an empty project with `roo-modes-server` on PATH standing for `shim`. */
function runSmoke(t: { after(fn: () => void): void }, script: string, shim: string): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'rms-ci-smoke-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bin = join(dir, 'bin');
  const work = join(dir, 'project');
  mkdirSync(bin);
  mkdirSync(work);
  writeFileSync(join(bin, 'roo-modes-server'), `#!/bin/sh\n${shim}\n`);
  chmodSync(join(bin, 'roo-modes-server'), 0o755);
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: work,
      env: { ...process.env, HOME: dir, ROO_CONFIG_DIR: join(dir, '.roo-code'), PATH: `${bin}:${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => { stdout += s; });
    child.stderr.setEncoding('utf8').on('data', (s: string) => { stderr += s; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`smoke script hung:\n${stdout}\n${stderr}`)); }, 90_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

const realServer = `exec "${process.execPath}" "${MAIN}" "$@"`;

test('the CI smoke-test example in docs/integration.md passes against the built server', async (t) => {
  const r = await runSmoke(t, smokeScript(), realServer);
  assert.equal(r.code, 0, `smoke script failed:\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.match(r.stdout, /✓ allowed: write_to_file on docs\/design\.md/);
  assert.match(r.stdout, /Task task_[0-9a-f]+ completed at /);
  assert.match(r.stdout, /roo-modes-server smoke test passed\s*$/);
});

test('the smoke example fails when a refused tool use is not reported as exit 1', async (t) => {
  // A stand-in that accepts every call: step 3 must notice the missing refusal.
  const r = await runSmoke(t, smokeScript(), 'echo "{}"; exit 0');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /expected exit 1 with error -32006, got exit 0/);
  assert.doesNotMatch(r.stdout, /smoke test passed/);
});

test('the smoke example stops at once when the server cannot start', async (t) => {
  const r = await runSmoke(t, smokeScript(), 'echo "error: cannot start" >&2; exit 2');
  assert.equal(r.code, 2);
  assert.doesNotMatch(r.stdout, /smoke test passed/);
});
