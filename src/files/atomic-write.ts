// Crash-safe file replacement shared by every writer of durable files: content goes to a hidden
// temp file beside the target, is fsynced, then renamed (or hard-linked) into place. Never writes a target in place.
import { link, mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { asTargetError, asWriteError, FileWriteError } from './write-errors.js';

// How it works. A temp file is created with O_EXCL in the target's own directory (rename is only
// atomic within one file system), written, given its mtime if asked, fsynced and closed. A rename
// then swaps it in: a reader sees the old file or the new one, never a mix. Finally the directory
// is fsynced so the rename itself survives a power cut; callers that batch many renames may skip
// that step and call syncDirectory once for the lot. A failed write removes its temp file.

export interface AtomicWriteOptions {
  /** Permission bits of a new file (the process umask still applies); default 0o644. */
  mode?: number;
  /** Modification (and access) time to give the file, in seconds since the epoch. */
  mtime?: number;
  /** Fsync the directory after the rename (default true); false when the caller does it itself. */
  syncDir?: boolean;
  /**
   * Owner, group and permission bits the new file takes exactly (umask aside), usually those of the
   * file it replaces, so a rename by another user (root, say) changes none of them.
   */
  keep?: { uid: number; gid: number; mode: number };
  /** Runs after the temp file is flushed and before it replaces the target; a throw leaves the target as it was. */
  beforeReplace?: () => Promise<void>;
}

// Errors meaning "this platform cannot fsync a directory" (Windows, some network file systems),
// as opposed to a failing disk, which must surface.
const DIR_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EINVAL', 'EBADF', 'ENOTSUP', 'EACCES']);

const errno = (err: unknown): string | undefined =>
  err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;

/**
 * A fresh temp name beside `target`: `.<name>.<pid>.<random>.tmp`. The leading dot and `.tmp`
 * ending keep it out of listings; the pid lets a cleaner tell a dead writer's leftover from a live
 * one's. The random part only needs to be unique (O_EXCL catches a clash), not secret, so it does
 * not load node:crypto.
 */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${tempSuffix()}`);
}

/** `<pid>.<random>.tmp`: the unique tail of every temp name made here. */
export function tempSuffix(): string {
  const random = Math.floor(Math.random() * 0x1_0000_0000_0000).toString(16).padStart(12, '0');
  return `${process.pid}.${random}.tmp`;
}

/** Flushes a directory's entries to disk; a no-op where the platform cannot do it. */
export async function syncDirectory(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, 'r');
  } catch (err) {
    if (DIR_SYNC_UNSUPPORTED.has(errno(err) ?? '')) return;
    throw err;
  }
  try {
    await fh.sync();
  } catch (err) {
    if (!DIR_SYNC_UNSUPPORTED.has(errno(err) ?? '')) throw err;
  } finally {
    await fh.close();
  }
}

/** Creates `path` (which must not exist) holding `data`, flushed to disk; the caller renames it into place. */
export async function writeFlushed(path: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<void> {
  const fh = await open(path, 'wx', opts.mode ?? 0o644).catch((err: unknown) => { throw asWriteError(err, path); });
  try {
    await fh.writeFile(data);
    if (opts.keep !== undefined) {
      // chown first: it may clear set-id bits, which chmod then puts back as they were.
      await fh.chown(opts.keep.uid, opts.keep.gid);
      await fh.chmod(opts.keep.mode);
    }
    if (opts.mtime !== undefined) await fh.utimes(opts.mtime, opts.mtime);
    await fh.sync();
  } catch (err) {
    throw asWriteError(err, path);
  } finally {
    await fh.close();
  }
}

/** Replaces `target` with `data` atomically and durably: readers see the old file or the new one. */
export async function writeFileAtomic(target: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<void> {
  const tmp = tempPathFor(target);
  try {
    await writeFlushed(tmp, data, opts);
    await opts.beforeReplace?.();
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    // Named by the target: the temp file's name means nothing to whoever asked for the write.
    throw asTargetError(err, target);
  }
  if (opts.syncDir !== false) await syncDirectory(dirname(target)).catch((err: unknown) => { throw asWriteError(err, target); });
}

/**
 * Creates `target` holding `data` only if no file of that name exists. The kernel decides through
 * link(2), so of two writers exactly one wins. Resolves false when the name was taken.
 */
export async function writeFileExclusive(target: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<boolean> {
  const tmp = tempPathFor(target);
  try {
    await writeFlushed(tmp, data, opts);
    await link(tmp, target);
  } catch (err) {
    if (errno(err) === 'EEXIST') return false;
    throw asTargetError(err, target);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  if (opts.syncDir !== false) await syncDirectory(dirname(target));
  return true;
}

/** Removes a file if it is there, durably; resolves false when it was already gone. */
export async function removeFile(target: string): Promise<boolean> {
  try {
    await unlink(target);
  } catch (err) {
    if (errno(err) === 'ENOENT') return false;
    throw asWriteError(err, target, 'remove');
  }
  await syncDirectory(dirname(target));
  return true;
}

/** Creates `dir` and its missing parents; a refusal by the OS names `dir` (a FileWriteError). */
export async function makeFolder(dir: string, mode?: number): Promise<void> {
  try {
    await mkdir(dir, mode === undefined ? { recursive: true } : { recursive: true, mode });
  } catch (err) {
    // mkdir -p says EEXIST when a file sits where the folder should be: the same refusal as ENOTDIR.
    throw errno(err) === 'EEXIST' ? new FileWriteError(dir, 'ENOTDIR', 'create the folder') : asWriteError(err, dir, 'create the folder');
  }
}
