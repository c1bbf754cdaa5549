// Whether a command word would start here the way a client or an agent starts it (through PATH),
// and what to say when it would not. Looks at the file system only; never runs anything or writes.
//
// Why: a project file (.mcp.json) and a hook written with `--hook command` name `roo-modes-server`
// on PATH, so they stay the same on every machine. Until the package is installed (it is not on the
// npm registry yet), that word starts nothing, and the client fails with a message about a missing
// command, far from the step that caused it. Saying so where the file is written is cheaper.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative } from 'node:path';

/** The file `command` names through PATH (and PATHEXT on Windows), or null when none is found. */
export function findOnPath(command: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | null {
  // A path is not looked up in PATH: it is where it is.
  if (command.includes('/') || (platform === 'win32' && command.includes('\\'))) return null;
  const sep = platform === 'win32' ? ';' : delimiter;
  const dirs = (env.PATH ?? env.Path ?? '').split(sep).filter((d) => d !== '');
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '')] : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      // Joined by this host's rules: `platform` only chooses PATH's separator, PATHEXT and the execute bit.
      const file = join(dir, command + ext);
      if (runnable(file, platform)) return file;
    }
  }
  return null;
}

function runnable(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    // Windows has no execute bit: a file with one of PATHEXT's endings runs.
    if (platform !== 'win32') accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The package folder of a running dist/main.cjs: what `npm install -g` or `npm link` takes. */
const packageDir = (mainPath: string): string => dirname(dirname(mainPath));

/**
 * How to run this installation by hand from `cwd`: `roo-modes-server` when PATH leads to a command
 * of that name, else `node` with the path of its main file (relative when it is below `cwd`).
 */
export function selfCommand(env: NodeJS.ProcessEnv, mainPath: string, cwd: string): string {
  if (findOnPath('roo-modes-server', env) !== null) return 'roo-modes-server';
  const rel = relative(cwd, mainPath);
  return `node ${rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : mainPath}`;
}

/**
 * The stderr lines for a file that names `word` on PATH where PATH has no such command: what will
 * fail, and the ways to fix it. `mainPath` (this installation's dist/main.cjs) is only printed,
 * never written: generated files must not carry a path of this machine.
 */
export function notOnPathHint(who: string, word: string, what: string, mainPath: string | undefined): string {
  const lines = [`${who}: warning: ${what} runs "${word}" found on PATH, and there is no "${word}" on PATH here, so it cannot start yet.`];
  if (mainPath !== undefined) {
    const dir = packageDir(mainPath);
    lines.push(`  Put it on PATH: npm install -g ${dir}, or npm link in that folder (either links the clone, so its rebuilds count; npm pack there and npm install -g the .tgz for a copy).`);
    lines.push(`  Or, on this machine only, run it by its path: node ${mainPath} (a per-user MCP entry, --global, is written that way).`);
  } else {
    lines.push(`  Put it on PATH: npm install -g <path to your roo-modes-server clone>, or npm link in that clone.`);
  }
  lines.push('  Teammates who use this file need the same.');
  return `${lines.join('\n')}\n`;
}
