// Where the hook keeps what it remembers between its processes (parsed mode files, compiled code),
// and the test a folder must pass before anything is read from it or written to it: what it holds
// stands in for the user's mode files or is run as code, so it must be this user's alone.
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$XDG_CACHE_HOME/roo-modes-server/NAME`, else `~/.cache/roo-modes-server/NAME`. */
export function hookCacheFolder(env: NodeJS.ProcessEnv, name: string): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'roo-modes-server', name);
}

/**
 * Makes `dir` (0700) when missing; true only when it is a folder this user owns and no one else may
 * write to. Anything else, a failure included, is false: the caller then goes without its cache.
 */
export function privateFolder(dir: string): boolean {
  try {
    // Looked at first: it is there on every call but the first, and making it costs more calls.
    let st = statSync(dir, { throwIfNoEntry: false });
    if (st === undefined) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      st = statSync(dir);
    }
    return st.isDirectory() && (st.mode & 0o022) === 0 && (typeof process.getuid !== 'function' || st.uid === process.getuid());
  } catch { return false; }
}

/** Keeps the `keep` entries of `dir` written last (by their time); any failure leaves it as it is. */
function pruneFolder(dir: string, keep: number): void {
  const names = readdirSync(dir);
  if (names.length <= keep) return;
  const aged: [number, string][] = [];
  for (const name of names) {
    try { aged.push([statSync(join(dir, name)).mtimeMs, name]); } catch { /* gone meanwhile */ }
  }
  aged.sort((a, b) => a[0] - b[0]);
  for (const [, name] of aged.slice(0, aged.length - keep)) rmSync(join(dir, name), { force: true });
}

/**
 * A cache file's bytes; undefined when it is missing or unreadable, or larger than `maxBytes` (then
 * it is not read at all: a cache is only worth what it saves, and nothing read is unbounded).
 */
export function readCacheFile(file: string, maxBytes: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    if (size > maxBytes) return undefined;
    const bytes = Buffer.allocUnsafe(size);
    let at = 0;
    for (let n; at < size && (n = readSync(fd, bytes, at, size - at, at)) > 0;) at += n;
    return bytes.subarray(0, at);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes `file` in `dir` (0600) aside and renames it into place, so a reader sees the old file or the
 * new one, never half of one; then keeps the `keep` files written last. `data` is called only here,
 * so making it costs nothing when writing cannot happen. A cache that cannot be written is only slower.
 */
export function writeCacheFile(dir: string, file: string, data: () => string | Uint8Array, keep: number): void {
  const aside = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(aside, data(), { mode: 0o600 });
    renameSync(aside, file);
    pruneFolder(dir, keep);
  } catch {
    try { rmSync(aside, { force: true }); } catch { /* nothing more to do */ }
  }
}
