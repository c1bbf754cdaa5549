// Reads a small file the server was asked to read, refusing what is not one: a symlink where
// none may be, a FIFO, a device, a directory, a file over its size cap. It never blocks on open,
// never reads past the cap, and never puts a refused file's content into its error.

import { constants } from 'node:fs';
import { open, realpath, stat, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';

// How it works. The file is opened with O_NONBLOCK (opening a FIFO for reading would otherwise
// wait for a writer for ever, holding a libuv thread that even SIGTERM cannot free) and O_NOCTTY,
// plus O_NOFOLLOW when links are refused. Everything after that is judged on the open descriptor
// (fstat), so swapping the name between the check and the read changes nothing: only a regular file
// of at most `maxBytes` is read, and the read stops after `maxBytes + 1` bytes even if the file
// grows meanwhile. With `confineTo`, the file's real path must lie inside that folder's real path
// and still be the very file that was opened (same device and inode).

/** Which kind of refusal; `io` is any other failure of the OS (its code is in `osCode`). */
export type UnsafeReason = 'missing' | 'symlink' | 'not_regular' | 'too_large' | 'outside' | 'io';

/** The file was not read. The message names the file and the problem, never its content. */
export class UnsafeFileError extends Error {
  readonly path: string;
  readonly reason: UnsafeReason;
  /** Node's error code (ENOENT, EACCES…) when the OS refused. */
  readonly osCode: string | undefined;
  /** The problem alone, for messages that name the file their own way. */
  readonly problem: string;
  constructor(path: string, reason: UnsafeReason, problem: string, osCode?: string) {
    super(`${path}: ${problem}`);
    this.name = 'UnsafeFileError';
    this.path = path;
    this.reason = reason;
    this.osCode = osCode;
    this.problem = problem;
  }
}

export interface SafeReadOptions {
  /** Longest file read (bytes); a longer one is refused unless `cut` is set. */
  maxBytes: number;
  /** 'refuse': the last path component must not be a symlink; 'follow': links are followed. */
  links: 'refuse' | 'follow';
  /** With links followed: the real file must be inside this folder (after its own links). */
  confineTo?: string;
  /** Return the first `maxBytes` (cut on a UTF-8 boundary) instead of refusing a longer file. */
  cut?: boolean;
}

export interface SafeRead { text: string; size: number; mtimeMs: number; cut: boolean }

const errno = (err: unknown): string | undefined =>
  err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;

function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

const inside = (root: string, p: string): boolean => {
  const rel = relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
};

/** Opens `path` under the rules above; the caller closes the handle. */
export async function openSafely(path: string, opts: SafeReadOptions): Promise<FileHandle> {
  const flags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0)
    | (opts.links === 'refuse' ? (constants.O_NOFOLLOW ?? 0) : 0);
  let fh: FileHandle;
  try {
    fh = await open(path, flags);
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new UnsafeFileError(path, 'missing', 'does not exist', code);
    // O_NOFOLLOW on a symlink: ELOOP on Linux and macOS, EMLINK on FreeBSD.
    if (opts.links === 'refuse' && (code === 'ELOOP' || code === 'EMLINK')) {
      throw new UnsafeFileError(path, 'symlink', 'is a symbolic link, which is not accepted here', code);
    }
    throw new UnsafeFileError(path, 'io', `cannot be opened (${code ?? String(err)})`, code);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new UnsafeFileError(path, 'not_regular', `is ${kindOf(st)}, not a regular file`);
    if (opts.confineTo !== undefined) await checkConfined(path, opts.confineTo, st);
    return fh;
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  }
}

async function checkConfined(path: string, folder: string, opened: { dev: number; ino: number }): Promise<void> {
  const outside = (): UnsafeFileError =>
    new UnsafeFileError(path, 'outside', `leads outside ${folder} through a symbolic link`);
  let real: string;
  let realFolder: string;
  try {
    [real, realFolder] = await Promise.all([realpath(path), realpath(folder)]);
  } catch {
    throw outside();
  }
  if (!inside(realFolder, real)) throw outside();
  const now = await stat(real).catch(() => null);
  if (now === null || now.dev !== opened.dev || now.ino !== opened.ino) throw outside();
}

/** Reads a small text file (UTF-8) under the rules above; throws UnsafeFileError otherwise. */
export async function readFileSafely(path: string, opts: SafeReadOptions): Promise<SafeRead> {
  const fh = await openSafely(path, opts);
  try {
    const st = await fh.stat();
    if (st.size > opts.maxBytes && !opts.cut) throw tooLarge(path, st.size, opts.maxBytes);
    // One byte past the cap tells a file that grew since fstat from one that fits exactly.
    const buffer = Buffer.alloc(Math.min(st.size, opts.maxBytes) + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) break;
    }
    const over = filled > opts.maxBytes;
    if (over && !opts.cut) throw tooLarge(path, filled, opts.maxBytes);
    const bytes = buffer.subarray(0, Math.min(filled, opts.maxBytes));
    return { text: decodeWhole(bytes, over), size: st.size, mtimeMs: st.mtimeMs, cut: over || st.size > opts.maxBytes };
  } catch (err) {
    if (err instanceof UnsafeFileError) throw err;
    const code = errno(err);
    throw new UnsafeFileError(path, 'io', `cannot be read (${code ?? String(err)})`, code);
  } finally {
    await fh.close().catch(() => undefined);
  }
}

function tooLarge(path: string, size: number, max: number): UnsafeFileError {
  return new UnsafeFileError(path, 'too_large', `is larger than the ${max}-byte limit (${size} bytes or more)`);
}

/** UTF-8 text; when the bytes were cut, a partial character at the end is dropped, not mangled. */
function decodeWhole(bytes: Buffer, cut: boolean): string {
  if (!cut) return bytes.toString('utf8');
  let end = bytes.length;
  // Step back over continuation bytes to the start of the last character, and drop it if incomplete.
  let start = end - 1;
  while (start > 0 && start > end - 4 && (bytes[start]! & 0xc0) === 0x80) start--;
  const lead = bytes[start] ?? 0;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (end - start < need) end = start;
  return bytes.subarray(0, end).toString('utf8');
}
