// The one path decision: read the client's text, resolve it as a write would, confine it to the
// project, match the mode's pattern on the name and on the real target. No I/O of its own (FsView).
import { type FsView, locate, plainBelow, walk, type Walk } from './resolve.js';
import { absoluteText, climbsAfterName, isAbsoluteText, isPlainRelative, lexical, parseClientPath, type ParsedPath, type PathPlatform, relativeText, splitPath, startsWithParts } from './text.js';

export interface PathRules {
  /** The project root, absolute (it may itself lead through links). */
  readonly root: string;
  /** Refuse anything whose name or real target is outside the root. */
  readonly confine: boolean;
  /** The mode's fileRegex when the tool edits; compiled once per mode load, never here. */
  readonly pattern: RegExp | null;
}

export type PathRefusal =
  /** The text itself: empty, too long, control characters, a Windows drive. */
  | 'text'
  /** The name or its real target leaves the project root. */
  | 'outside'
  /**
   * The path cannot be followed: a link loop, a file used as a folder, an unreadable folder, or a
   * tilde prefix that cannot be located (`~user`, or `~` with no known home folder).
   */
  | 'unresolvable'
  /** The name or the real target does not match the mode's pattern. */
  | 'pattern';

export type PathDecision =
  | { readonly allowed: true; readonly name: string; readonly target: string }
  | {
    readonly allowed: false; readonly refusal: PathRefusal; readonly problem: string;
    /** The normalised, project-relative name, once known. */
    readonly name?: string;
    /** The project-relative real target the refusal is about, when it is not the name. */
    readonly target?: string;
  };

/**
 * How it works, in order:
 * 1. the text is read as the file system's platform reads it (fs.platform: `/` separates, and `\`
 *    too on Windows only; on POSIX `\` is part of a name), a leading `~` is the home folder as a
 *    shell expands it (readTilde), a relative path that climbs above the root is read as the
 *    absolute path it spells, and `.` and `..` are applied as path.resolve does, giving the
 *    name the pattern sees: project-relative, as Roo's tools would write it; an absolute path
 *    that reaches the project through another link than the root's spelling is read from where
 *    it enters it (enteredAt);
 * 2. the root and the path are walked like the kernel walks a write (see walk); when the text
 *    climbs with `..` after a name, it is walked both as written and as normalised, because
 *    kernel and path.resolve disagree after a link; every walk must pass;
 * 3. each real target must lie under the root's real location, and the pattern must match the
 *    name and every target, relative to the project.
 * A relative name that meets no link below the root skips the root's realpath (plainBelow): its
 * target is the name itself, which is what steps 2 and 3 would find.
 * No result is cached between calls: a link swapped between two calls is seen by the second.
 */
/** The last root read into components: a server judges every path against the same project root. */
const lastRoot = { text: '', platform: '', parts: [] as readonly string[] };
function rootPartsOf(root: string, platform: PathPlatform): readonly string[] {
  if (root !== lastRoot.text || platform !== lastRoot.platform) {
    lastRoot.parts = lexical([], splitPath(root, platform)).parts;
    lastRoot.text = root;
    lastRoot.platform = platform;
  }
  return lastRoot.parts;
}

export function decidePath(raw: string, rules: PathRules, fs: FsView): PathDecision {
  // The common case, read from the text alone: a relative POSIX path whose every component is a
  // plain name is its own project-relative name (what step 1 below would find), so it is judged
  // without splitting, normalising or allocating; a link or error below the root still takes the
  // full way, which then starts over.
  if (fs.platform === 'posix' && isPlainRelative(raw)) {
    if (!(rules.confine || rules.pattern !== null)) return { allowed: true, name: raw, target: raw };
    if (rules.pattern !== null && !rules.pattern.test(raw)) return matched(raw, [], rules.pattern);
    if (plainBelow(rootPartsOf(rules.root, 'posix'), raw.split('/'), false, fs)) return matched(raw, [raw], rules.pattern);
  }
  const read = parseClientPath(raw, fs.platform);
  if (!read.ok) return { allowed: false, refusal: 'text', problem: read.problem };
  const tilde = readTilde(raw, read.path, fs);
  if (!tilde.ok) return { allowed: false, refusal: 'unresolvable', problem: tilde.problem };
  const rootParts = rootPartsOf(rules.root, fs.platform);
  // A relative path that climbs above the root (`../<project>/notes.md`, as OpenCode passes one)
  // is the absolute path it spells from the root: judged by where it lands, inside or not.
  const climbsOut = !tilde.absolute && lexical(rootParts, tilde.parts).above > 0;
  const absolute = tilde.absolute || climbsOut;
  const parts = climbsOut ? [...rootParts, ...tilde.parts] : tilde.parts;
  const { spelled } = tilde;

  // The name: lexical, relative to the root as configured.
  const norm = lexical(absolute ? [] : rootParts, parts);
  let nameParts = norm.above === 0 && startsWithParts(norm.parts, rootParts) ? norm.parts.slice(rootParts.length) : null;
  const needsWalk = rules.confine || rules.pattern !== null;
  if (!needsWalk) return { allowed: true, name: nameText(nameParts, norm.parts, rootParts), target: nameText(nameParts, norm.parts, rootParts) };

  // The root's real location; a path under the root as configured resolves the same as under it,
  // since the kernel (and walk) follow the root's own links. The trailing `.` makes the root
  // resolve only when it is a folder (realpath(3) says ENOTDIR for `file/.`, and walk refuses it),
  // so a path can then be walked on from the real root (below).
  const resolveRoot = (): Walk => locate([...rootParts, '.'], fs);
  let realRoot: Walk | undefined;
  if (nameParts === null && absolute) {
    // An absolute name may spell the root's real location instead of the configured one.
    // It may also reach the project through another link (a cwd by the real path, a file_path
    // through a link, or the other way round): then it is read from where it enters the project.
    realRoot = resolveRoot();
    if (realRoot.ok) nameParts = enteredAt(norm.parts, realRoot, fs);
  }
  const name = nameText(nameParts, norm.parts, rootParts);
  if (nameParts === null && rules.confine) {
    return { allowed: false, refusal: 'outside', name, problem: `${spelled} is outside the project root ${rules.root}` };
  }
  // A name inside the project that the pattern refuses is refused wherever the write would land,
  // since the name and every target must match (matched): said from the text alone, before any
  // lookup. A hook is asked about many files its mode may not touch, and each lookup is a system call.
  if (nameParts !== null && rules.pattern !== null && !rules.pattern.test(name)) return matched(name, [], rules.pattern);

  // The walks: as normalised (what path.resolve-based tools write), and as written when they may
  // differ. A trailing separator (kept as a final `.`) still demands a folder after normalisation.
  const folder = parts[parts.length - 1] === '.' ? ['.'] : [];
  // The common case needs no realpath of the root: a relative name that stays below the root and
  // meets no link there lands at the root's real location followed by the name (plainBelow), so
  // the target is the name itself and only the pattern is left to check. Anything else (a link,
  // `..` after a name, an absolute path, a root that does not resolve) is decided the full way.
  if (!absolute && nameParts !== null && !climbsAfterName(parts) && plainBelow(rootParts, nameParts, folder.length > 0, fs)) {
    return matched(name, [name], rules.pattern);
  }
  // A path under an existing root is walked on from the root's real location: the kernel follows
  // the root's own links first, so the result is the same, and the components of the root (which
  // its realpath just examined) are not asked about again. Below the root only its own components
  // are looked up, and nothing past the first missing one (a realpath of a path that does not exist
  // yet, the common case for a write, costs an exception and then the whole walk anyway).
  realRoot ??= resolveRoot();
  if (!realRoot.ok) return { allowed: false, refusal: 'unresolvable', problem: `the project root cannot be followed: ${realRoot.problem}` };
  const fromRealRoot = realRoot.exists;
  const realRootParts = realRoot.parts;
  const under = (rest: readonly string[]): Walk => (fromRealRoot ? walk(realRootParts, rest, fs) : locate([...rootParts, ...rest], fs));
  const reals: Walk[] = [nameParts !== null ? under([...nameParts, ...folder]) : locate([...norm.parts, ...folder], fs)];
  if (climbsAfterName(parts)) reals.push(absolute ? locate(parts, fs) : under(parts));
  const targets: string[] = [];
  for (const real of reals) {
    if (!real.ok) return { allowed: false, refusal: 'unresolvable', name, problem: `${spelled} cannot be followed: ${real.problem}` };
    const inside = startsWithParts(real.parts, realRoot.parts);
    const target = inside ? real.parts.slice(realRoot.parts.length).join('/') || '.' : relativeText(realRoot.parts, real.parts);
    if (!inside && rules.confine) {
      return { allowed: false, refusal: 'outside', name, target, problem: `${spelled} leads to ${absoluteText(real.parts)}, outside the project root ${rules.root}` };
    }
    targets.push(target);
  }
  return matched(name, targets, rules.pattern);
}

type Tilde =
  | { readonly ok: true; readonly absolute: boolean; readonly parts: readonly string[]; readonly spelled: string }
  | { readonly ok: false; readonly problem: string };

/**
 * A leading tilde prefix, read as a shell reads it, so `~/x` is never a project folder named `~`:
 * `~` alone or before a separator is the home folder (fs.home), and the path becomes absolute
 * there. `~user` is that user's home for a shell, and `~+` / `~-` (bash) its current and previous
 * folder; none can be located without asking the user database or the shell, so they are refused
 * (a shell leaves `~nosuchuser` as written, but a client writing it means a home folder, and a
 * guess would fail open). `spelled` is how refusals quote the path (with the expansion, if any).
 */
function readTilde(raw: string, path: ParsedPath, fs: FsView): Tilde {
  const spelled = `"${raw}"`;
  if (path.tilde === null) return { ok: true, absolute: path.absolute, parts: path.parts, spelled };
  const home = path.tilde === '~' ? fs.home?.() ?? null : null;
  if (home === null || !isAbsoluteText(home, fs.platform)) {
    const what = path.tilde === '~' ? 'the home folder, which is not known here' : `which a shell reads as the home folder of user "${path.tilde.slice(1)}" (or, for ~+ and ~-, its current or previous folder); where that is cannot be known here`;
    return { ok: false, problem: `${spelled} starts with ${path.tilde}, ${what}` };
  }
  return { ok: true, absolute: true, parts: [...splitPath(home, fs.platform), ...path.parts.slice(1)], spelled: `${spelled} (~ is the home folder ${home})` };
}

/**
 * The components of absolute `parts` below the project: after the root's real location when it is
 * spelled out, else after the shortest prefix that resolves to it (a link to the project, or to a
 * folder above it). Prefixes are tried while they exist; null when none reaches the project.
 */
function enteredAt(parts: readonly string[], realRoot: Walk & { ok: true }, fs: FsView): string[] | null {
  if (startsWithParts(parts, realRoot.parts)) return parts.slice(realRoot.parts.length);
  if (!realRoot.exists) return null;
  for (let n = 1; n <= parts.length; n++) {
    const at = locate(parts.slice(0, n), fs);
    if (!at.ok || !at.exists) return null;
    if (at.parts.length === realRoot.parts.length && startsWithParts(at.parts, realRoot.parts)) return parts.slice(n);
  }
  return null;
}

/** The last step: the pattern must match the name and every real target (at least one). */
function matched(name: string, targets: readonly string[], pattern: RegExp | null): PathDecision {
  if (pattern !== null) {
    if (!pattern.test(name)) return { allowed: false, refusal: 'pattern', name, problem: `"${name}" does not match ${pattern.source}` };
    for (const target of targets) {
      if (!pattern.test(target)) {
        return { allowed: false, refusal: 'pattern', name, target, problem: `"${name}" leads to "${target}", which does not match ${pattern.source}` };
      }
    }
  }
  return { allowed: true, name, target: targets[0]! };
}

/** The name as the pattern sees it: project-relative when inside, else relative with `..`. */
function nameText(inside: readonly string[] | null, whole: readonly string[], root: readonly string[]): string {
  if (inside !== null) return inside.join('/') || '.';
  return relativeText(root, whole);
}
