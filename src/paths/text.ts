// The text half of a path decision: what a client's path string says, read the way the platform
// where the write lands reads it (`\` separates on Windows only). Pure: it never touches the file system.

/** Longer paths are refused: no file system needs them, and they bound the cost of a pattern test. */
export const MAX_PATH_LENGTH = 4096;

// Any C0 control character or DEL: no legitimate file name needs one, and they hide tricks in logs.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
/**
 * `C:` or `c:` followed by `\`, `/` or nothing: a Windows drive. Refused on every platform: on
 * Windows it is a path on a drive, outside any project; on POSIX it names a file `C:\…` at the
 * project root, which no client means (it is a Windows path sent from elsewhere).
 */
const WINDOWS_DRIVE = /^[a-zA-Z]:([\\/]|$)/;

/**
 * How names are separated where the write lands. POSIX: only `/`; `\` is an ordinary character
 * of a file name (`src\..\x.md` is one file at the project root). Windows: `\` and `/` both.
 */
export type PathPlatform = 'posix' | 'win32';
const SEPARATORS: Readonly<Record<PathPlatform, RegExp>> = { posix: /\/+/, win32: /[\\/]+/ };

/** Splits a path of `platform` into components (see splitParts). */
export const splitPath = (text: string, platform: PathPlatform): string[] => splitParts(text, SEPARATORS[platform]);

/** Whether a path of `platform` starts from the top: a separator, or (Windows) a drive and a separator. */
export const isAbsoluteText = (text: string, platform: PathPlatform): boolean =>
  SEPARATORS[platform].test(text.charAt(0)) || (platform === 'win32' && WINDOWS_DRIVE.test(text) && text.length > 2);

/** A client's path split into components; `.` and `..` are kept, empty components dropped. */
export interface ParsedPath {
  readonly absolute: boolean;
  /** Components in order; a trailing separator becomes a final `.` (the path must be a folder). */
  readonly parts: readonly string[];
  /**
   * The first component when it is a shell's tilde prefix (`~`, `~user`, `~+`…; the path is then
   * relative and that prefix is parts[0]), else null. A `~` anywhere else is an ordinary name.
   */
  readonly tilde: string | null;
}

export type TextVerdict = { ok: true; path: ParsedPath } | { ok: false; problem: string };

/** Splits text on `sep`, dropping empty components, and keeps a trailing separator as `.`. */
export function splitParts(text: string, sep: RegExp): string[] {
  const raw = text.split(sep);
  const parts = raw.filter((p) => p !== '');
  if (raw.length > 1 && raw[raw.length - 1] === '' && parts.length > 0) parts.push('.');
  return parts;
}

/** Reads a client's path as `platform` separates it; refuses text no file name should carry. */
export function parseClientPath(raw: string, platform: PathPlatform): TextVerdict {
  if (raw.length === 0) return { ok: false, problem: 'the path is empty' };
  if (raw.length > MAX_PATH_LENGTH) return { ok: false, problem: `the path is longer than ${MAX_PATH_LENGTH} characters` };
  if (CONTROL_CHARS.test(raw)) return { ok: false, problem: 'the path contains control characters' };
  if (WINDOWS_DRIVE.test(raw)) return { ok: false, problem: `"${raw}" is an absolute Windows path, outside the project root` };
  const parts = splitPath(raw, platform);
  const absolute = isAbsoluteText(raw, platform);
  // A shell expands a tilde prefix only at the very start of a word, up to the first separator.
  const tilde = !absolute && raw.startsWith('~') ? parts[0]! : null;
  return { ok: true, path: { absolute, parts, tilde } };
}

/**
 * Whether POSIX text is a relative path of plain names: not empty, no longer than MAX_PATH_LENGTH,
 * not starting with `/` or a tilde, none of CONTROL_CHARS, no `:` second (a drive, or a text left to
 * parseClientPath to judge), and no empty, `.` or `..` component (so no `//` and no trailing `/`).
 * Such text is exactly what parseClientPath and lexical would turn into the name: itself. One pass
 * over the characters, nothing allocated (decidePath's common case).
 */
export function isPlainRelative(raw: string): boolean {
  const n = raw.length;
  if (n === 0 || n > MAX_PATH_LENGTH || raw.charCodeAt(0) === 0x2f || raw.charCodeAt(0) === 0x7e || (n > 1 && raw.charCodeAt(1) === 0x3a)) return false;
  let start = 0;
  for (let i = 0; i <= n; i++) {
    const c = i === n ? 0x2f : raw.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return false;
    if (c !== 0x2f) continue;
    const len = i - start;
    if (len === 0 || (len === 1 && raw.charCodeAt(start) === 0x2e) || (len === 2 && raw.charCodeAt(start) === 0x2e && raw.charCodeAt(start + 1) === 0x2e)) return false;
    start = i + 1;
  }
  return true;
}

/**
 * Applies `.` and `..` as text, the way path.resolve (and so Roo's tools) does, on top of `base`.
 * Returns the components and how many `..` climbed above `base` (0 when the path stays under it).
 */
export function lexical(base: readonly string[], parts: readonly string[]): { parts: string[]; above: number } {
  const out = [...base];
  let above = 0;
  for (const part of parts) {
    if (part === '.') continue;
    if (part !== '..') out.push(part);
    else if (out.length > base.length) out.pop();
    else if (out.length > 0) { out.pop(); above++; } else above++;
  }
  return { parts: out, above };
}

/** True when `parts` begins with every component of `prefix` (case-sensitive, as POSIX names are). */
export function startsWithParts(parts: readonly string[], prefix: readonly string[]): boolean {
  if (parts.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (parts[i] !== prefix[i]) return false;
  return true;
}

/** Whether a `..` follows a name in `parts`: then the kernel and path.resolve may disagree. */
export function climbsAfterName(parts: readonly string[]): boolean {
  let named = false;
  for (const part of parts) {
    if (part === '..') { if (named) return true; } else if (part !== '.') named = true;
  }
  return false;
}

/** `to` relative to `from`, both absolute component lists, with `..` where it climbs; `.` when equal. */
export function relativeText(from: readonly string[], to: readonly string[]): string {
  let common = 0;
  while (common < from.length && common < to.length && from[common] === to[common]) common++;
  const parts = [...Array<string>(from.length - common).fill('..'), ...to.slice(common)];
  return parts.length === 0 ? '.' : parts.join('/');
}

/** An absolute path from its components. */
export const absoluteText = (parts: readonly string[]): string => `/${parts.join('/')}`;
