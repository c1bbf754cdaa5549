// Runs the built CLI (node dist/main.cjs ...) once, with a fresh HOME unless told otherwise, and
// collects its exit code and output. For tests of one-shot commands and start-up refusals.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN } from './harness.js';

export interface CliRun { code: number | null; stdout: string; stderr: string }

export interface CliOptions { env?: Record<string, string | undefined>; cwd?: string; home?: string; input?: string; timeoutMs?: number }

export function runCli(args: string[], o: CliOptions = {}): Promise<CliRun> {
  const ownHome = o.home === undefined ? mkdtempSync(join(tmpdir(), 'rms-cli-home-')) : null;
  const home = o.home ?? ownHome!;
  const timeoutMs = o.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      cwd: o.cwd ?? home,
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '', ROO_CONFIG_DIR: join(home, '.roo-code'), ...o.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => { stdout += t; });
    child.stderr.setEncoding('utf8').on('data', (t: string) => { stderr += t; });
    child.stdin.on('error', () => { /* it may exit before reading */ });
    child.stdin.end(o.input ?? '');
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${args.join(' ')} did not finish in ${timeoutMs} ms:\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (ownHome !== null) rmSync(ownHome, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
}
