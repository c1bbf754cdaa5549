// Runs the built CLI (dist/main.js) once with arguments and stdin, and collects what it printed.
// For one-shot subcommands (hook, export); the MCP server itself goes through harness.ts.
import { spawn } from 'node:child_process';
import { MAIN } from './harness.js';

export interface CliResult { code: number | null; stdout: string; stderr: string }

export function runCli(args: string[], opts: { input?: string; env?: Record<string, string | undefined>; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => { /* it may exit before reading */ });
    child.stdin.end(opts.input ?? '');
  });
}
