// Where a path really leads, found the way the kernel walks it for a write: every component in
// turn, symbolic links followed wherever they sit (dangling ones too). No I/O: facts come from a FsView.
import { absoluteText, isAbsoluteText, splitPath, type PathPlatform } from './text.js';

/** What one lstat (and readlink, for a link) says about an absolute path. */
export type Entry =
  | { readonly kind: 'dir' | 'file' | 'other' | 'missing' }
  | { readonly kind: 'link'; readonly target: string }
  | { readonly kind: 'error'; readonly code: string };

/**
 * The file system as the decision sees it; the live one asks the OS, tests use a table. Answers
 * are plain values, not promises: the live view's calls are synchronous (live-fs.ts says why).
 */
export interface FsView {
  /** How names are separated on it: a client's text, a link's target, a realpath (see text.ts). */
  readonly platform: PathPlatform;
  /** The home folder a shell gives `~`, absolute; absent or null when it is not known. */
  home?(): string | null;
  entry(absolutePath: string): Entry;
  /**
   * Optional shortcut: the OS's realpath of an existing path (one call for what walk finds
   * component by component), or null when it does not resolve (missing, loop, not a folder…).
   */
  realpath?(absolutePath: string): string | null;
  /**
   * True when entry() answers for any absolute path exactly as lstat(2) does: every component but
   * the last is followed as the kernel follows it, links included (the live view). Only such a
   * view may be asked about paths under a root that is itself a link (see plainBelow).
   */
  readonly resolvesPrefixes?: boolean;
}

/** Linux gives up (ELOOP) after following this many links in one lookup; so do we. */
export const MAX_LINK_HOPS = 40;

export type Walk =
  | { ok: true; parts: string[]; exists: boolean }
  | { ok: false; problem: string };

/**
 * How it works: `pos` is always a real location (no links in it). Each component is looked up
 * under it; a link is replaced by its target's components (from `/` when absolute, else from the
 * link's folder), so `..` inside or after a link climbs from where the link leads, as in the
 * kernel. Once a component is missing, the rest cannot exist either and is applied as text (the
 * write would create the folders); a `..` back above that point returns to real ground.
 */
export function walk(start: readonly string[], parts: readonly string[], fs: FsView): Walk {
  const pos = [...start];
  const pending = [...parts].reverse(); // a stack: the next component is on top
  let hops = 0;
  let missingFrom = -1; // pos.length when the first missing component was pushed; -1 while all exist
  let last: 'dir' | 'file' | 'other' = 'dir'; // what pos names, while it exists
  const notDir = (): Walk => ({ ok: false, problem: `${absoluteText(pos)} is a ${last === 'file' ? 'file' : 'special file'}, not a folder` });

  while (pending.length > 0) {
    const part = pending.pop()!;
    const real = missingFrom < 0;
    if (real && last !== 'dir') return notDir();
    if (part === '.') continue;
    if (part === '..') {
      pos.pop();
      if (!real && pos.length < missingFrom) missingFrom = -1;
      last = 'dir';
      continue;
    }
    pos.push(part);
    if (!real) continue;
    const found = fs.entry(absoluteText(pos));
    switch (found.kind) {
      case 'missing':
        missingFrom = pos.length;
        break;
      case 'dir': case 'file': case 'other':
        last = found.kind;
        break;
      case 'link': {
        if (++hops > MAX_LINK_HOPS) return { ok: false, problem: `more than ${MAX_LINK_HOPS} symbolic links in a row (a loop?) at ${absoluteText(pos)}` };
        pos.pop();
        if (isAbsoluteText(found.target, fs.platform)) pos.length = 0;
        // A link's target is the file system's text, separated as its platform separates names.
        const target = splitPath(found.target, fs.platform);
        for (let i = target.length - 1; i >= 0; i--) pending.push(target[i]!);
        last = 'dir';
        break;
      }
      case 'error':
        return { ok: false, problem: `${absoluteText(pos)} cannot be examined (${found.code})` };
    }
  }
  return { ok: true, parts: pos, exists: missingFrom < 0 };
}

/**
 * Resolves absolute `parts`: through the view's realpath when it has one and the path exists,
 * else by walk. Nothing is asked ahead of the walk: every lookup is a synchronous call, so asking
 * early saves nothing, and a lookup past a missing folder would be a wasted call.
 */
export function locate(parts: readonly string[], fs: FsView): Walk {
  if (fs.realpath) {
    const real = fs.realpath(absoluteText(parts));
    if (real !== null) return { ok: true, parts: splitPath(real, fs.platform), exists: true };
  }
  return walk([], parts, fs);
}

/**
 * The common case without knowing where the root really is: true when the kernel resolves the
 * root to a folder and each name below it, up to the first missing one, is a folder with no link
 * in the way (the last name may be a file or special file unless `folder`). Then the real target
 * is the root's real location followed by `names`, exactly what walk would find from there, so the
 * root's realpath is not needed. False means "decide it the full way": a link anywhere below the
 * root, an error, a file used as a folder, or a first name missing while the root itself does not
 * resolve to a folder (ENOENT, like the ENOTDIR of a root that is a file, which the live view also
 * reads as missing, cannot tell a missing name from a missing root, so the root is asked about
 * then; walk and the kernel also part ways on a root leading through a missing folder and `..`,
 * which the full procedure judges). `names` must be lexical: no `.`, no `..`.
 */
export function plainBelow(root: readonly string[], names: readonly string[], folder: boolean, fs: FsView): boolean {
  if (fs.resolvesPrefixes !== true || names.length === 0) return false;
  // The absolute text grows by one name per step (what absoluteText gives for each prefix).
  const top = root.length === 0 ? '' : absoluteText(root);
  let at = top;
  for (let i = 0; i < names.length; i++) {
    at += `/${names[i]!}`;
    const found = fs.entry(at);
    switch (found.kind) {
      case 'dir': continue;
      case 'file': case 'other': return i === names.length - 1 && !folder;
      case 'missing': return i > 0 || fs.entry(`${top}/.`).kind === 'dir';
      default: return false;
    }
  }
  return true;
}
