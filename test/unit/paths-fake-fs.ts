// A file system as a table, for path-decision tests: absolute path → 'dir' | 'file' | 'other' |
// '-> target' (a symbolic link) | 'EACCES'-style error codes. Anything not listed is missing.
import { MAX_LINK_HOPS, walk, type Entry, type FsView } from '../../src/paths/resolve.js';
import { isAbsoluteText, splitPath, type PathPlatform } from '../../src/paths/text.js';

export type FakeTree = Readonly<Record<string, string>>;

export interface FakeFs extends FsView {
  /** Every path asked about, in order (to check how often the decision touches the disk). */
  readonly asked: string[];
  /** Replaces or adds entries, e.g. to swap a link between two decisions. */
  set(path: string, what: string | undefined): void;
}

const MISSING: Entry = { kind: 'missing' };

function toEntry(what: string | undefined): Entry {
  if (what === undefined) return MISSING;
  if (what.startsWith('-> ')) return { kind: 'link', target: what.slice(3) };
  if (what === 'dir' || what === 'file' || what === 'other') return { kind: what };
  return { kind: 'error', code: what };
}

/**
 * lstat(2) over the table, as the kernel answers it: every component but the last is followed
 * (links too, `..` from where a link leads, at most MAX_LINK_HOPS of them), and a missing or
 * non-folder component on the way answers for the whole path (ENOENT, ENOTDIR: missing, as the
 * live view maps them); the last component is reported as it is, a link not followed.
 */
function lstatModel(table: ReadonlyMap<string, string>, path: string, platform: PathPlatform): Entry {
  const parts = path.split('/').filter((p) => p !== '');
  const last = parts.pop();
  const pending = parts.reverse(); // a stack: the next component is on top
  const pos: string[] = [];
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.pop()!;
    if (part === '.') continue;
    if (part === '..') { pos.pop(); continue; }
    const found = toEntry(table.get(`/${[...pos, part].join('/')}`));
    switch (found.kind) {
      case 'dir': pos.push(part); break;
      case 'missing': case 'file': case 'other': return MISSING;
      case 'error': return found;
      case 'link': {
        if (++hops > MAX_LINK_HOPS) return { kind: 'error', code: 'ELOOP' };
        if (isAbsoluteText(found.target, platform)) pos.length = 0;
        const target = splitPath(found.target, platform);
        for (let i = target.length - 1; i >= 0; i--) pending.push(target[i]!);
        break;
      }
    }
  }
  if (last === undefined || last === '.' || last === '..') return { kind: 'dir' };
  return toEntry(table.get(`/${[...pos, last].join('/')}`));
}

/**
 * With `realpath: true` the view also offers the realpath shortcut, answered by walking the table
 * (an existing path only), so the same rows can be decided along both routes. With
 * `resolvesPrefixes: false` it stops claiming to answer like lstat for any path (as the live view
 * does), which turns off decidePath's plain walk below the configured root: the full procedure.
 * `platform` says how names are separated (POSIX unless told); `home` is what `~` means (`/o`, a
 * folder outside the project, unless told; null for a machine with no known home).
 */
export interface FakeOptions { realpath?: boolean; resolvesPrefixes?: boolean; platform?: PathPlatform; home?: string | null }

export function fakeFs(tree: FakeTree, options: FakeOptions = {}): FakeFs {
  const table = new Map(Object.entries(tree));
  const asked: string[] = [];
  const platform = options.platform ?? 'posix';
  const home = options.home === undefined ? '/o' : options.home;
  const view: FakeFs = {
    asked,
    platform,
    home: () => home,
    resolvesPrefixes: options.resolvesPrefixes ?? true,
    entry(path) {
      asked.push(path);
      return lstatModel(table, path, platform);
    },
    set(path, what) {
      if (what === undefined) table.delete(path); else table.set(path, what);
    },
  };
  if (!options.realpath) return view;
  const plain: FsView = { platform, entry: (path) => view.entry(path) };
  return Object.assign(view, {
    realpath(path: string): string | null {
      const found = walk([], path.split('/').filter((p) => p !== ''), plain);
      return found.ok && found.exists ? `/${found.parts.join('/')}` : null;
    },
  });
}
