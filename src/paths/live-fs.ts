// The FsView that asks the operating system: lstat, and readlink for links. One view serves one
// decision and remembers its answers only for that decision, so nothing seen is ever reused later.
import { lstat, readlink, realpath } from 'node:fs/promises';
import type { Entry, FsView } from './resolve.js';

const KINDS = { dir: { kind: 'dir' }, file: { kind: 'file' }, other: { kind: 'other' }, missing: { kind: 'missing' } } as const;

async function look(path: string): Promise<Entry> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return { kind: 'link', target: await readlink(path) };
    return st.isDirectory() ? KINDS.dir : st.isFile() ? KINDS.file : KINDS.other;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    // ENOTDIR: a prefix is a file; the walk reports that itself before it ever needs this entry.
    return code === 'ENOENT' || code === 'ENOTDIR' ? KINDS.missing : { kind: 'error', code };
  }
}

/** The kernel's own resolution of an existing path (libuv's realpath: one thread-pool trip). */
const real = (path: string): Promise<string | null> => realpath(path).catch(() => null);

/** Remembers each answer of `ask` by path; the map lives as long as the view it belongs to. */
function remembered<T>(ask: (path: string) => Promise<T>): (path: string) => Promise<T> {
  const seen = new Map<string, Promise<T>>();
  return (path) => {
    let found = seen.get(path);
    if (found === undefined) {
      found = ask(path);
      seen.set(path, found);
    }
    return found;
  };
}

/** Wraps a view so each path is asked about at most once; meant to live for one decision only. */
export function onceEach(inner: FsView): FsView {
  const entry = remembered((path) => inner.entry(path));
  const rp = inner.realpath;
  return rp ? { entry, realpath: remembered((path) => rp.call(inner, path)) } : { entry };
}

/** A fresh view of the real file system for one decision: nothing it learns outlives that decision. */
export const liveFsView = (): FsView => onceEach({ entry: look, realpath: real });
