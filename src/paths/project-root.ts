// The one walk that finds the project from a working directory, as git finds its repository: up to
// the nearest folder holding .roomodes, .roo/ or .git. Reads metadata only; never prints or decides precedence.
//
// Why a walk: run from a subfolder (`cd src`), the CLI and the server used to treat that subfolder
// as the project, so `validate` checked nothing and passed. Every command and the server ask this
// function when no root was given (flag, environment or config file), and say which root they use
// when it is not the working directory (rootNotice).
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** What marks a folder as a project, nearest first in the order they are tried at each level. */
export const ROOT_MARKERS = ['.roomodes', '.roo', '.git'] as const;
export type RootMarker = (typeof ROOT_MARKERS)[number];

export type EntryKind = 'dir' | 'file' | 'other' | 'missing';

/** The walk's answer: the folder found and the marker that made it one, or the start and null. */
export interface FoundRoot { root: string; marker: RootMarker | null; start: string }

export interface WalkOptions {
  /**
   * The home folder: its `.roo/` is Roo Code's global rules folder, not a project's, so it does not
   * make the home folder a project (a `.roomodes` or `.git` there still does).
   */
  homeDir?: string;
  /** How an entry is looked at; tests pass their own. Default: the file system (stat, links followed). */
  kindOf?: (path: string) => EntryKind;
}

function liveKind(path: string): EntryKind {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (st === undefined) return 'missing';
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
  } catch {
    // Unreadable (EACCES) or a broken prefix: as git does, an entry we cannot look at marks nothing.
    return 'missing';
  }
}

/**
 * Does `marker` in `dir` make `dir` a project? `.roomodes` is a file; `.roo` a folder; `.git` a
 * folder or, in a worktree or submodule, a file pointing at the real one.
 */
function marks(marker: RootMarker, kind: EntryKind): boolean {
  if (marker === '.roomodes') return kind === 'file';
  if (marker === '.roo') return kind === 'dir';
  return kind === 'dir' || kind === 'file';
}

/**
 * Walks from `start` (made absolute) up to the filesystem root and returns the first folder that
 * holds a marker. When none does, the start itself with `marker: null`: the working directory, as
 * before the walk existed. The number of steps is the depth of `start`, so it always ends.
 */
export function findProjectRoot(start: string, options: WalkOptions = {}): FoundRoot {
  const kindOf = options.kindOf ?? liveKind;
  const home = options.homeDir === undefined ? null : resolve(options.homeDir);
  const from = resolve(start);
  for (let dir = from; ; dir = dirname(dir)) {
    for (const marker of ROOT_MARKERS) {
      if (marker === '.roo' && dir === home) continue;
      if (marks(marker, kindOf(join(dir, marker)))) return { root: dir, marker, start: from };
    }
    if (dirname(dir) === dir) return { root: from, marker: null, start: from };
  }
}

/**
 * The one stderr line that says which project is used, when the walk moved away from the working
 * directory; null when the project is the working directory itself (nothing to say).
 */
export function rootNotice(found: FoundRoot, who: string): string | null {
  if (found.root === found.start) return null;
  return `${who}: using the project at ${found.root} (found ${found.marker} above ${found.start}; --project-root overrides)\n`;
}
