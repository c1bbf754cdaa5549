// The FsView that asks the operating system: lstat, and readlink for links. One view serves one
// decision and remembers its answers only for that decision, so nothing seen is ever reused later.
//
// Why synchronous calls: a decision asks a handful of metadata questions (lstat, readlink, realpath;
// never a file's content), each a few microseconds in the kernel, while a trip through libuv's
// thread pool costs several times that and made validate_tool_use the server's bottleneck. The
// number of calls per decision is bounded (path length, MAX_LINK_HOPS), so the event loop is held
// for microseconds, not for anything a client controls. The answers are handed back as plain
// values (no promise per lookup), so a whole decision runs as ordinary calls and leaves no garbage
// of pending promises and suspended frames behind.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import type { Entry, FsView } from './resolve.js';

const KINDS = { dir: { kind: 'dir' }, file: { kind: 'file' }, other: { kind: 'other' }, missing: { kind: 'missing' } } as const;

function look(path: string): Entry {
  try {
    // No exception for the common "does not exist yet" (a file about to be written).
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st === undefined) return KINDS.missing;
    if (st.isSymbolicLink()) return { kind: 'link', target: readlinkSync(path) };
    return st.isDirectory() ? KINDS.dir : st.isFile() ? KINDS.file : KINDS.other;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
    // ENOTDIR: a prefix is a file; walk reports that itself before it ever needs this entry, and
    // plainBelow, which may meet it under a root that is a file, then asks whether the root is a folder.
    return code === 'ENOENT' || code === 'ENOTDIR' ? KINDS.missing : { kind: 'error', code };
  }
}

/** The kernel's own resolution of an existing path (realpath(3)), or null when it does not resolve. */
function real(path: string): string | null {
  try { return realpathSync.native(path); } catch { return null; }
}

/** The home folder as a shell finds it ($HOME first, then the user database), or null without one. */
function home(): string | null {
  try { return homedir() || null; } catch { return null; }
}

/**
 * lstat(2) itself resolves every component but the last, links included: what resolvesPrefixes
 * promises. Names are separated as this machine separates them, since the write lands here.
 */
const LIVE: FsView = { platform: process.platform === 'win32' ? 'win32' : 'posix', home, entry: look, realpath: real, resolvesPrefixes: true };

/**
 * A view that asks `inner` about each path at most once; meant to live for one decision only. A
 * class whose memos are made on first use, because a hook needs a fresh view for every call and
 * most calls (a name the pattern refuses) ask nothing at all.
 */
class OnceEach implements FsView {
  readonly platform: FsView['platform'];
  readonly resolvesPrefixes: boolean;
  #entries: Map<string, Entry> | null = null;
  #reals: Map<string, string | null> | null = null;

  constructor(private readonly inner: FsView) {
    this.platform = inner.platform;
    this.resolvesPrefixes = inner.resolvesPrefixes === true;
  }

  home(): string | null { return this.inner.home?.() ?? null; }

  entry(path: string): Entry {
    const seen = (this.#entries ??= new Map());
    let found = seen.get(path);
    if (found === undefined) { found = this.inner.entry(path); seen.set(path, found); }
    return found;
  }

  /** Null (walk instead) when the inner view has no realpath of its own. */
  realpath(path: string): string | null {
    const seen = (this.#reals ??= new Map());
    let found = seen.get(path);
    if (found === undefined) { found = this.inner.realpath?.(path) ?? null; seen.set(path, found); }
    return found;
  }
}

/** Wraps a view so each path is asked about at most once; meant to live for one decision only. */
export const onceEach = (inner: FsView): FsView => new OnceEach(inner);

/** A fresh view of the real file system for one decision: nothing it learns outlives that decision. */
export const liveFsView = (): FsView => new OnceEach(LIVE);
