// The server child process: starting it, keeping a tail of its stderr, and stopping it in steps
// (stdin EOF, then SIGTERM, then SIGKILL). It never reads stdout messages and never writes stdout.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { SpawnError } from './errors.js';

export interface StdioServerParams {
  command: string;
  args?: readonly string[];
  /** The child's whole environment (Node's spawn semantics); omit to inherit this process's. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How close() got the process to stop: it left on stdin EOF, or needed SIGTERM or SIGKILL. */
export type StopStep = 'eof' | 'SIGTERM' | 'SIGKILL';
export interface CloseResult extends ExitInfo {
  stoppedBy: StopStep;
}

export interface CloseOptions {
  /** How long to wait after ending stdin before SIGTERM (default 2000 ms). */
  graceMs?: number;
  /** How long to wait after SIGTERM before SIGKILL (default 2000 ms). */
  termMs?: number;
}

const STDERR_TAIL_BYTES = 8192;

/**
 * A started server. `closed` resolves once the process has exited and its pipes have closed
 * (Node's 'close' event), so no buffered stdout line is still unread at that point.
 */
export class ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly closed: Promise<ExitInfo>;
  /** Resolves when the process itself has ended, even if a grandchild still holds its pipes. */
  readonly exited: Promise<ExitInfo>;
  #exit: ExitInfo | undefined;
  #tail = '';
  #closing: Promise<CloseResult> | undefined;

  private constructor(child: ChildProcessWithoutNullStreams, onStderr?: (text: string) => void) {
    this.child = child;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      this.#tail = (this.#tail + text).slice(-STDERR_TAIL_BYTES);
      onStderr?.(text);
    });
    // A write after the server died raises EPIPE on stdin; the exit path reports it instead.
    child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code: number | null, signal: NodeJS.Signals | null) => resolve({ code, signal }));
    });
    this.closed = new Promise((resolve) => {
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        this.#exit = { code, signal };
        resolve(this.#exit);
      });
    });
  }

  /** Starts the command; rejects with SpawnError when the OS cannot run it. */
  static start(params: StdioServerParams, onStderr?: (text: string) => void): Promise<ServerProcess> {
    if (typeof params.command !== 'string' || params.command === '') {
      return Promise.reject(new TypeError('command must be a non-empty string'));
    }
    return new Promise((resolve, reject) => {
      let child: ChildProcessWithoutNullStreams;
      try {
        child = spawn(params.command, [...(params.args ?? [])], {
          stdio: ['pipe', 'pipe', 'pipe'],
          env: params.env ?? process.env,
          ...(params.cwd === undefined ? {} : { cwd: params.cwd }),
          windowsHide: true,
        });
      } catch (err) {
        reject(new SpawnError(params.command, err));
        return;
      }
      const onError = (err: Error): void => reject(new SpawnError(params.command, err));
      child.once('error', onError);
      child.once('spawn', () => {
        child.off('error', onError);
        // Later errors (a failed kill) must not crash the host; exit is reported through 'close'.
        child.on('error', () => undefined);
        resolve(new ServerProcess(child, onStderr));
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The server's stdout, where its messages arrive. */
  get output(): NodeJS.ReadableStream {
    return this.child.stdout;
  }

  /** The exit status once the process has gone, else undefined. */
  get exit(): ExitInfo | undefined {
    return this.#exit;
  }

  /** The last few KiB the server wrote to stderr. */
  get stderrTail(): string {
    return this.#tail;
  }

  /** Writes one framed message; false when stdin is already closed (the exit path reports why). */
  write(line: string): boolean {
    const stdin = this.child.stdin;
    if (stdin.destroyed || stdin.writableEnded) return false;
    stdin.write(line);
    return true;
  }

  /**
   * The stdio shutdown sequence: end stdin and give the server `graceMs` to leave by itself,
   * then SIGTERM, then SIGKILL after `termMs`. Idempotent: later calls share the first result.
   */
  close(options: CloseOptions = {}): Promise<CloseResult> {
    this.#closing ??= this.#stop(options.graceMs ?? 2000, options.termMs ?? 2000);
    return this.#closing;
  }

  async #stop(graceMs: number, termMs: number): Promise<CloseResult> {
    if (this.#exit !== undefined) return { ...this.#exit, stoppedBy: 'eof' };
    this.child.stdin.end();
    const within = async (ms: number): Promise<ExitInfo | undefined> => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(resolve, ms, undefined);
      });
      try {
        return await Promise.race([this.exited, timeout]);
      } finally {
        clearTimeout(timer);
      }
    };
    const early = await within(graceMs);
    if (early !== undefined) return { ...(await this.#drained(early)), stoppedBy: 'eof' };
    this.child.kill('SIGTERM');
    const termed = await within(termMs);
    if (termed !== undefined) return { ...(await this.#drained(termed)), stoppedBy: 'SIGTERM' };
    this.child.kill('SIGKILL');
    return { ...(await this.#drained(await this.exited)), stoppedBy: 'SIGKILL' };
  }

  /** After exit, waits briefly for the pipes; a grandchild holding them open must not hang close(). */
  async #drained(exit: ExitInfo): Promise<ExitInfo> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, 500, undefined);
    });
    const done = await Promise.race([this.closed, late]);
    clearTimeout(timer);
    if (done === undefined) {
      this.child.stdout.destroy();
      this.child.stderr.destroy();
      this.child.stdin.destroy();
    }
    return exit;
  }
}
