// The entry of the self-contained check (roo-modes-check.cjs, which export writes into a project):
// `node roo-modes-check.cjs hook claude-code|cursor …` runs the hook with nothing else installed.
// It answers only `hook`; it never serves, exports or reads anything but the event and the modes.
import { fstatSync, writeSync } from 'node:fs';
import { runHook } from './hook.js';
import { readStdin } from './stdin.js';

export { runHook, readStdin };

/** The package's own floor (package.json engines): older Nodes are refused, not half-run. */
const MIN_NODE_MAJOR = 20;

// process.stdout and node:tty are not touched unless needed: setting either up loads Node's stream
// and socket modules, which cost the hook about 1.5 ms of CPU before every call it guards.

/** The answer, written straight to fd 1 (a pipe that would block takes the stream instead). */
export function writeOut(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(1, bytes, at);
  } catch (err) {
    if (!(err instanceof Error && 'code' in err && err.code === 'EAGAIN')) throw err;
    process.stdout.write(bytes.subarray(at));
  }
}

/** Whether someone runs the hook by hand at a terminal: only a character device can be one. */
export function stdinIsTerminal(): boolean {
  try {
    return fstatSync(0).isCharacterDevice() && process.stdin.isTTY === true;
  } catch { return false; }
}

/**
 * Runs the hook on this process's arguments and stdin and sets the exit code. Anything that goes
 * wrong, a wrong first word included, exits 2, which blocks the call in every agent that runs it.
 */
export async function runCheckFile(argv: readonly string[]): Promise<void> {
  // stdout carries the answer alone: anything printed through console goes to stderr.
  for (const name of ['log', 'info', 'debug', 'warn', 'trace'] as const) console[name] = console.error;
  const err = (text: string): void => { process.stderr.write(text); };
  try {
    const major = Number(process.versions.node.split('.')[0]);
    if (!(major >= MIN_NODE_MAJOR)) {
      err(`roo-modes-check: needs Node ${MIN_NODE_MAJOR} or later; this is Node ${process.versions.node}\n`);
      process.exitCode = 2;
      return;
    }
    const [first, ...rest] = argv;
    if (first !== 'hook') {
      err(`roo-modes-check: the first argument must be "hook" (as in: node roo-modes-check.cjs hook claude-code --mode SLUG), not ${JSON.stringify(first ?? '')}\n`);
      process.exitCode = 2;
      return;
    }
    process.exitCode = await runHook(rest, { out: writeOut, err, env: process.env, stdin: readStdin, stdinIsTerminal: stdinIsTerminal() });
  } catch (e) {
    err(`roo-modes-check: cannot judge the call: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
  }
}
