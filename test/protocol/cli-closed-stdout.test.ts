// The built CLI whose reader stops early (`… | head`): every subcommand finishes quietly with its
// own exit code, no EPIPE stack trace, whatever it was printing at the time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, tempDir } from './harness.js';

/**
 * Runs the CLI into `head -c 100` through a real pipe (a shell pipeline with pipefail, so the exit
 * status is the CLI's own), as a user's `… | head` does: head leaves after its bytes, the pipe breaks.
 */
function runIntoHead(args: string[], cwd: string, home: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; shown: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'set -o pipefail; "$0" "$@" | head -c 100', process.execPath, MAIN, ...args], {
      cwd, env: { ...process.env, HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code') }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let shown = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => { stderr += t; });
    child.stdout.setEncoding('utf8').on('data', (t: string) => { shown += t; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${args.join(' ')} did not exit:\n${stderr}`)); }, 30_000);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stderr, shown }); });
  });
}

/** A project whose modes make every listing far larger than a pipe's buffer (64 KiB). */
function bigProject(t: Parameters<typeof tempDir>[0]): { project: string; home: string } {
  const project = tempDir(t, 'rms-head-proj-');
  const home = tempDir(t, 'rms-head-home-');
  const modes = Array.from({ length: 80 }, (_, i) =>
    `  - slug: wide-${i}\n    name: Wide ${i}\n    roleDefinition: "${'role text '.repeat(300)}"\n    groups: [read]\n`).join('');
  writeFileSync(join(project, '.roomodes'), `customModes:\n${modes}`);
  return { project, home };
}

for (const [name, args] of [
  ['call tools/list', ['call', 'tools/list']],
  ['call list_modes', ['call', 'list_modes']],
  ['export --dry-run', ['export', '--to', 'claude-code', '--dry-run']],
  ['modes --json', ['modes', '--json']],
] as const) {
  test(`${name} piped into a reader that stops early exits quietly`, async (t) => {
    const { project, home } = bigProject(t);
    const withRoot = args[0] === 'call' ? [...args, '--server', `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)} --project-root ${JSON.stringify(project)}`] : [...args, '--project-root', project];
    const run = await runIntoHead(withRoot, project, home);
    assert.equal(Buffer.byteLength(run.shown), 100, 'head got its bytes');
    assert.doesNotMatch(run.stderr, /EPIPE|Error:|\n\s+at /, `no stack trace on stderr: ${run.stderr.slice(0, 800)}`);
    assert.equal(run.signal, null);
    assert.equal(run.code, 0, `exit code of the CLI (stderr: ${run.stderr.slice(0, 400)})`);
  });
}
