// The project a CLI command works on: --project-root, else $ROO_PROJECT_ROOT, else the walk up from
// the working directory (paths/project-root.ts). Prints at most the one stderr line of the walk; never stdout.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { findProjectRoot, rootNotice } from '../paths/project-root.js';
import { expandHome } from './options.js';

export interface RootIo { env: NodeJS.ProcessEnv; err(text: string): void }

/**
 * A root that is named (flag, then environment) is used as given, without walking: the user said
 * which project. Otherwise the nearest marked folder up from `cwd`, told on stderr when it is not `cwd`.
 */
export function cliProjectRoot(given: string | undefined, io: RootIo, cwd: string = process.cwd()): string {
  const named = given ?? (io.env.ROO_PROJECT_ROOT || undefined);
  if (named !== undefined) return resolve(cwd, expandHome(named, io.env));
  const found = findProjectRoot(cwd, { homeDir: io.env.HOME || homedir() });
  const note = rootNotice(found, 'roo-modes-server');
  if (note !== null) io.err(note);
  return found.root;
}
