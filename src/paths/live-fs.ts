// The FsView that asks the operating system: lstat, and readlink for links. One view serves one
// decision and remembers its answers only for that decision, so nothing seen is ever reused later.
import { lstat, readlink } from 'node:fs/promises';
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

/** Wraps a view so each path is asked about at most once; meant to live for one decision only. */
export function onceEach(inner: FsView): FsView {
  const seen = new Map<string, Promise<Entry>>();
  return {
    entry(path) {
      let found = seen.get(path);
      if (found === undefined) {
        found = inner.entry(path);
        seen.set(path, found);
      }
      return found;
    },
  };
}

/** A fresh view of the real file system for one decision: nothing it learns outlives that decision. */
export const liveFsView = (): FsView => onceEach({ entry: look });
