// What the self-contained check uses of node:fs/promises, made with synchronous calls: the build links
// this module in its place for that file alone (src/build/bundle-hook.mjs). The check is a process
// that reads a few files, answers once and exits, with nothing to do while a read is under way, so
// the same calls made synchronously cost less: no thread pool to start and no hand-over for each
// call (about 3.5 ms of CPU per hook call, of the ~15 ms the hook adds to Node's own start). The
// promises keep the callers' code and errors as they are; the server, the plugin and the tests use
// the real module.
import { closeSync, fstatSync, openSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';

/** The part of a FileHandle the check's modules use. */
export interface SyncFileHandle {
  stat(): Promise<Stats>;
  read<T extends NodeJS.ArrayBufferView>(buffer: T, offset: number, length: number, position: number | null): Promise<{ bytesRead: number; buffer: T }>;
  close(): Promise<void>;
}

export async function open(path: string, flags: string | number): Promise<SyncFileHandle> {
  const fd = openSync(path, flags);
  let closed = false;
  return {
    stat: async () => fstatSync(fd),
    read: async (buffer, offset, length, position) => ({ bytesRead: readSync(fd, buffer, offset, length, position), buffer }),
    close: async () => { if (!closed) { closed = true; closeSync(fd); } },
  };
}

export async function stat(path: string): Promise<Stats> {
  return statSync(path);
}

/** The system's realpath, as node:fs/promises' is (not the one made of lstat calls). */
export async function realpath(path: string): Promise<string> {
  return realpathSync.native(path);
}
