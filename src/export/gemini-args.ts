// Turns a mode's fileRegex into a Gemini CLI policy argsPattern that matches every write_file or
// replace call whose file_path the mode does not allow. Pure string work; when in doubt it matches (denies).
import { chars, classText, complement, intersect, union, units } from './char-sets.js';
import { onlyEndAnchored, readRegex, singleUnit, UnreadableRegex, type RegexNode, type RegexTree } from './regex-tree.js';

// What Gemini CLI 0.61 tests (gemini-cli-core: policy/stable-stringify.js, policy-engine.js,
// policy/utils.js, tools/write-file.js, tools/edit.js):
// - the pattern runs, without flags, on its stable serialisation of the call's arguments: keys
//   sorted, values as JSON.stringify writes them, and each top-level `"key":value` pair wrapped
//   in NUL characters; a NUL inside a value is escaped, so `\0"file_path":"` starts the path;
// - its loader drops (with only a load error) a pattern longer than 2048 characters or matching
//   GEMINI_UNSAFE below, which condemns any `)` followed by a quantifier once a group holding a
//   quantifier character (`(?` included) came before it. The text below never puts a quantifier
//   after `)`: a repeated group is written out, and a group that matches one character becomes a class;
// - write_file resolves file_path against the project folder; replace, when that file does not
//   exist, looks for one of the same name elsewhere in the workspace whose path ends with it;
//   both strip NUL, decode %-escapes after resolving, drop a leading `@` when no such file exists,
//   and refuse (themselves, outside the policy) a path outside the workspace folders.
//
// So a call is allowed only when its file_path is plain: characters JSON leaves as they are
// (no control characters, no `"` or `\`), no `%`, no leading `@` or `~`, no drive letter, and no
// empty, `.`, `..` or `.gemini` segment; one leading `./` is accepted. Relative, the mode's
// pattern must match it as Roo matches a project-relative path. Absolute, the project's folder is
// not known (the export names no path of this machine), so it is allowed only when the pattern
// holds for every tail the project-relative path could be: that is true of a pattern without
// `^` or `\b` that matches the last segment alone (a match there stays a match with any folders in
// front, which is also what makes replace's search safe). For other patterns absolute paths and
// replace are refused. Everything else is refused: that is the fail-closed direction.

/** Gemini's loader check for patterns it drops as a possible ReDoS (policy/utils.js isSafeRegExp). */
export const GEMINI_UNSAFE = /\([^)]*[*+?{].*\)[*+?{]/;
export const GEMINI_MAX_PATTERN = 2048;

/** Characters a plain path may hold (see above). */
const PATH_CHARS = complement(union(units(0x00, 0x1f), units(0x7f), chars('"%\\')));
const P = classText(PATH_CHARS);
const KEY = String.raw`\x00"file_path":"`;
/** The path's closing quote, followed by the pair's closing NUL. */
const END = String.raw`(?="\x00)`;
/** `^` of the fileRegex in the relative branch: after one leading `./`, else at the path's start. */
const START = String.raw`(?:(?<=${KEY}\./)|(?<=${KEY})(?!\./))`;

/** Refuses an empty, `.`, `..` or `.gemini` segment after any `/`, and a trailing `/`. */
const LATER_SEGMENTS = [`(?!${P}*//)`, `(?!${P}*/")`, String.raw`(?!${P}*/\.\.?[/"])`, String.raw`(?!${P}*/\.gemini[/"])`].join('');
/** The same for the first segment of a relative path (nothing, `/`, `.`, `..`, `.gemini`). */
const FIRST_SEGMENT = String.raw`(?![/"])(?!\.\.?[/"])(?!\.gemini[/"])`;
/** At the path's start: all plain characters up to the closing quote; no `@`, `~` or drive letter first. */
const PLAIN = String.raw`(?=${P}*"\x00)(?![@~])(?![A-Za-z]:)`;

export type ArgsPattern =
  | { ok: true; pattern: string; absolute: boolean; replace: boolean }
  | { ok: false; reason: string };

interface Anchors { start: string; end: string }

const quantifierText = (min: number, max: number): string =>
  max === Infinity ? (min === 0 ? '*' : min === 1 ? '+' : `{${min},}`) : min === 0 && max === 1 ? '?' : min === max ? `{${min}}` : `{${min},${max}}`;

function emitAlts(alts: RegexTree, a: Anchors): string {
  return alts.map((seq) => seq.map((n) => emitNode(n, a)).join('')).join('|');
}

function emitNode(n: RegexNode, a: Anchors): string {
  switch (n.kind) {
    // Cut to plain characters: never the closing quote, so no part leaves the path.
    case 'set': return classText(intersect(n.set, PATH_CHARS));
    case 'start': return a.start;
    case 'end': return a.end;
    // The path's neighbours (`"`, or `/` after `./`) are not word characters, like a string's edges.
    case 'boundary': return n.negated ? '\\B' : '\\b';
    case 'group': return `(?:${emitAlts(n.alts, a)})`;
    case 'repeat': {
      const one = singleUnit(n.node);
      if (one !== null) return classText(intersect(one, PATH_CHARS)) + quantifierText(n.min, n.max) + (n.lazy ? '?' : '');
      if (n.max === Infinity) throw new UnreadableRegex('a group repeated without bound (Gemini CLI drops a pattern that repeats a group)');
      // Written out: `min` copies, then the optional ones nested as `(?:X(?:X|)|)`.
      const body = emitNode(n.node, a);
      let tail = '';
      for (let k = n.min; k < n.max; k++) tail = `(?:${body}${tail}|)`;
      return body.repeat(n.min) + tail;
    }
  }
}

/** The argsPattern denying every call whose file_path `fileRegex` does not allow, or why there is none. */
export function editArgsPattern(fileRegex: string): ArgsPattern {
  let tree: RegexTree;
  let relative: string;
  try {
    tree = readRegex(fileRegex);
    relative = emitAlts(tree, { start: START, end: END });
  } catch (err) {
    if (err instanceof UnreadableRegex) return { ok: false, reason: err.message };
    throw err;
  }
  const tailSafe = onlyEndAnchored(tree);
  const rel = String.raw`(?:\./|(?!\./))${FIRST_SEGMENT}${LATER_SEGMENTS}(?=${P}*?(?:${relative}))`;
  // Absolute: the pattern must match within the last segment (after the last `/`).
  const abs = tailSafe ? `(?=/)${LATER_SEGMENTS}(?=${P}*/(?!${P}*/)${P}*?(?:${emitAlts(tree, { start: '[]', end: END })}))` : null;
  const allowed = `${KEY}${PLAIN}(?:${rel}${abs === null ? '' : `|${abs}`})`;
  const pattern = String.raw`^(?![\s\S]*?${allowed})`;
  if (pattern.length > GEMINI_MAX_PATTERN) return { ok: false, reason: `its translation is ${pattern.length} characters long, over Gemini CLI's limit of ${GEMINI_MAX_PATTERN}` };
  if (GEMINI_UNSAFE.test(pattern)) return { ok: false, reason: 'its translation would be dropped by Gemini CLI as unsafe' };
  try { new RegExp(pattern); } catch (err) {
    return { ok: false, reason: `its translation does not compile (${err instanceof Error ? err.message : String(err)})` };
  }
  return { ok: true, pattern, absolute: tailSafe, replace: tailSafe };
}
