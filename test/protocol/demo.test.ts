// Runs `node dist/main.js demo` (the built server walking the seed workflow against itself) and
// checks that the transcript shows every step with the expected answer. Needs `npm run build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN } from './harness.js';

interface Run { code: number | null; stdout: string; stderr: string }

function runMain(args: string[], timeoutMs = 60_000): Promise<Run> {
  const home = mkdtempSync(join(tmpdir(), 'rms-demo-home-'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      cwd: home, env: { ...process.env, HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code') }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => { stdout += t; });
    child.stderr.setEncoding('utf8').on('data', (t: string) => { stderr += t; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`demo did not finish in ${timeoutMs} ms:\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      rmSync(home, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
}

/** The transcript cut into steps: "[n/N] title" blocks. */
function stepsOf(transcript: string): { head: string; body: string }[] {
  return transcript.split(/\n(?=\[\d+\/\d+\] )/).slice(1).map((block) => {
    const nl = block.indexOf('\n');
    return { head: block.slice(0, nl), body: block.slice(nl + 1) };
  });
}

test('demo walks the seed workflow and every step gives the expected answer', async () => {
  const r = await runMain(['demo']);
  assert.equal(r.code, 0, `demo failed:\n${r.stdout}\n${r.stderr}`);
  const steps = stepsOf(r.stdout);
  const calls = steps.map((s) => /→ (\w+) /.exec(s.body)?.[1]);
  assert.deepEqual(calls, [
    'list_modes', 'get_mode_info', 'create_task', 'validate_tool_use', 'validate_tool_use', 'switch_mode',
    'validate_tool_use', 'create_task', 'get_task_info', 'complete_task', 'complete_task',
  ]);
  for (const s of steps) {
    assert.match(s.body, /\n {2}✓ /, `step without a success line: ${s.head}\n${s.body}`);
    assert.doesNotMatch(s.body, /✗ (error|unexpected)/, `step failed: ${s.head}`);
  }
  assert.match(r.stdout, /Demo finished: all 11 steps gave the expected answer\./);
});

test('demo transcript shows the architect refused on src/app.py and allowed on design.md', async () => {
  const r = await runMain(['demo']);
  assert.equal(r.code, 0, r.stderr);
  const steps = stepsOf(r.stdout);
  const designMd = steps.find((s) => s.body.includes('"file_path":"design.md"'));
  const appPyArchitect = steps.find((s) => s.body.includes('"file_path":"src/app.py"') && s.body.includes('Architect'));
  assert.ok(designMd && appPyArchitect, 'both validate_tool_use steps are in the transcript');
  assert.match(designMd.body, /✓ allowed: write_to_file on design\.md/);
  assert.match(appPyArchitect.body, /✗ not allowed: write_to_file on src\/app\.py/);
  assert.match(appPyArchitect.body, /✓ refused, as expected \(FILE_RESTRICTION_ERROR\)/);
  const hierarchy = steps.find((s) => s.body.includes('"include_hierarchy":true'));
  assert.ok(hierarchy);
  assert.match(hierarchy.body, /child: task_[0-9a-f]+ \(session ses_[0-9a-f]{24}\) — debug, active/);
});

test('demo --help explains itself and an unknown flag is a usage error (exit 2)', async () => {
  const help = await runMain(['demo', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: roo-modes-server demo/);
  const bad = await runMain(['demo', '--bogus']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^roo-modes-server demo: unknown option "--bogus"/);
});
