// Starts one agent CLI process for the rig: its PATH (without roo-modes-server unless asked, and
// without any other command named), an environment built from scratch, its own process group, a
// timeout that kills that group, and output kept to a bound. It knows nothing of models or cases.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's bin, as an installed roo-modes-server would run it. */
const BIN = fileURLToPath(new URL('../../dist/main.cjs', import.meta.url));
const SYSTEM_DIRS = ['/usr/local/bin', '/usr/bin', '/bin'];
const MAX_OUTPUT = 1 << 20;

export interface EnvOptions {
  /** Put `roo-modes-server` (this build) first on PATH; otherwise it is on no folder of PATH. */
  launcher?: boolean;
  /** More commands to keep off PATH (e.g. `node`). */
  hide?: string[];
  /** Variables added last. */
  env?: Record<string, string>;
}

/** PATH: `first`, then the system folders (and this Node's), each without the `hide` names. */
function searchPath(work: string, hide: readonly string[], first: readonly string[]): string {
  const dirs: string[] = [...first];
  const seen = new Set<string>();
  for (const d of [...SYSTEM_DIRS, dirname(process.execPath)]) {
    if (!existsSync(d) || seen.has(realpathSync(d))) continue;
    seen.add(realpathSync(d));
    const names = readdirSync(d);
    if (!names.some((n) => hide.includes(n))) { dirs.push(d); continue; }
    // A copy of the folder as symbolic links, less the hidden commands.
    const mirror = mkdtempSync(join(work, 'path-'));
    for (const n of names) if (!hide.includes(n)) symlinkSync(join(d, n), join(mirror, n));
    dirs.push(mirror);
  }
  return dirs.join(':');
}

/** A folder holding `roo-modes-server`, running this build as the installed package would. */
function launcherDir(work: string): string {
  const dir = mkdtempSync(join(work, 'launcher-'));
  writeFileSync(join(dir, 'roo-modes-server'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(dir, 'roo-modes-server'), 0o755);
  return dir;
}

/**
 * The whole environment of an agent process (nothing inherited, so no key or setting of this
 * machine leaks in): HOME and the XDG folders inside `home`, a TMPDIR of its own, then the host's
 * variables, then the case's.
 */
export function agentEnv(home: string, work: string, hostEnv: Record<string, string>, o: EnvOptions): Record<string, string> {
  mkdirSync(work, { recursive: true });
  const hide = ['roo-modes-server', ...(o.hide ?? [])];
  return {
    PATH: searchPath(work, hide, o.launcher ? [launcherDir(work)] : []),
    HOME: home, TMPDIR: work, LANG: 'C.UTF-8', TERM: 'dumb', NO_COLOR: '1',
    XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'), XDG_STATE_HOME: join(home, '.local', 'state'),
    ...hostEnv, ...o.env,
  };
}

export interface Exit { code: number | null; signal: NodeJS.Signals | null; timedOut: boolean; stdout: string; stderr: string }

/** Runs argv in its own process group until it exits; on timeout, and after it, the group is killed. */
export async function runGroup(argv: string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<Exit> {
  const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout = (stdout + c).slice(-MAX_OUTPUT); });
  child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr = (stderr + c).slice(-MAX_OUTPUT); });
  // The whole group: hooks, plugins' children, and the binary a launcher started, which a kill of the launcher leaves running.
  const killGroup = () => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ } };
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; killGroup(); }, timeoutMs);
  try {
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done, fail) => {
      child.on('error', fail);
      child.on('close', (c, s) => done([c, s]));
    });
    return { code, signal, timedOut, stdout, stderr };
  } finally {
    clearTimeout(timer);
    killGroup();
  }
}
