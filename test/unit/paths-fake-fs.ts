// A file system as a table, for path-decision tests: absolute path → 'dir' | 'file' | 'other' |
// '-> target' (a symbolic link) | 'EACCES'-style error codes. Anything not listed is missing.
import { walk, type Entry, type FsView } from '../../src/paths/resolve.js';

export type FakeTree = Readonly<Record<string, string>>;

export interface FakeFs extends FsView {
  /** Every path asked about, in order (to check how often the decision touches the disk). */
  readonly asked: string[];
  /** Replaces or adds entries, e.g. to swap a link between two decisions. */
  set(path: string, what: string | undefined): void;
}

/**
 * With `realpath: true` the view also offers the realpath shortcut, answered by walking the table
 * (an existing path only), so the same rows can be decided along both routes.
 */
export function fakeFs(tree: FakeTree, options: { realpath?: boolean } = {}): FakeFs {
  const table = new Map(Object.entries(tree));
  const asked: string[] = [];
  const toEntry = (what: string | undefined): Entry => {
    if (what === undefined) return { kind: 'missing' };
    if (what.startsWith('-> ')) return { kind: 'link', target: what.slice(3) };
    if (what === 'dir' || what === 'file' || what === 'other') return { kind: what };
    return { kind: 'error', code: what };
  };
  const view: FakeFs = {
    asked,
    entry(path) {
      asked.push(path);
      return toEntry(table.get(path));
    },
    set(path, what) {
      if (what === undefined) table.delete(path); else table.set(path, what);
    },
  };
  if (!options.realpath) return view;
  const plain: FsView = { entry: (path) => view.entry(path) };
  return Object.assign(view, {
    realpath(path: string): string | null {
      const found = walk([], path.split('/').filter((p) => p !== ''), plain);
      return found.ok && found.exists ? `/${found.parts.join('/')}` : null;
    },
  });
}
