// Decides whether a mode's fileRegex may be used: it must compile as a JS RegExp, must not be able
// to backtrack catastrophically, and must compile in V8's linear-time engine. It never runs a regex.
import { setFlagsFromString } from 'node:v8';

// How the time bound is kept, in one place. Every accepted pattern compiles in V8's linear-time
// engine (the `l` flag, checked at load), and V8 re-runs any match that backtracks excessively in
// that engine, so a check costs a bounded number of backtracks plus one linear pass. The flags are
// set when this module loads, before any fileRegex is compiled: every compile goes through here.
// Bun (OpenCode and Kilo run the exported plugin in it) has no V8 flags and throws: there the
// static scan below stands alone, as on a V8 without the linear engine.
try {
  setFlagsFromString('--enable-experimental-regexp-engine');
  setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
} catch { /* not V8: LINEAR_ENGINE below is false */ }

/** Whether this V8 accepts the linear-engine flag; when not, the static scan below stands alone. */
const LINEAR_ENGINE = ((): boolean => {
  try { return new RegExp('a', 'l').flags.includes('l'); } catch { return false; }
})();

/** V8's linear engine unrolls counted repetitions and refuses counts above this. */
export const MAX_REPEAT_COUNT = 16;

/** Longer patterns are refused outright: no real file filter needs them, and they cost to scan. */
export const MAX_FILE_REGEX_LENGTH = 2048;

/** What a closed group looked like, for judging a quantifier placed right after it. */
interface GroupInfo { variable: boolean; ambiguous: boolean }

/** One open group (the whole pattern is the outermost one). */
interface Frame {
  /** Something inside can match a varying number of times (a quantifier, at any depth). */
  variable: boolean;
  /** Something inside is an alternation whose branches may start with the same character. */
  ambiguous: boolean;
  /** The first character of each finished branch: a literal, null when unknown, '' when empty. */
  firsts: (string | null)[];
  /** First character of the branch being read; undefined until its first atom. */
  first: string | null | undefined;
}

const newFrame = (): Frame => ({ variable: false, ambiguous: false, firsts: [], first: undefined });

/** The four lookaround openers and what to call them in a message: one table. */
const LOOKAROUND_NAMES: Readonly<Record<string, string>> = {
  '(?=': 'lookahead', '(?!': 'negative lookahead', '(?<=': 'lookbehind', '(?<!': 'negative lookbehind',
};
const LOOKAROUNDS = Object.keys(LOOKAROUND_NAMES);

/** Escapes that stand for one literal character (so `\.` starts a branch with '.'). */
const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S', 'b', 'B', 'p', 'P']);

/** Branches are safe to repeat only when each starts with its own literal character. */
function branchesOverlap(firsts: readonly (string | null)[]): boolean {
  if (firsts.length < 2) return false;
  const seen = new Set<string>();
  for (const f of firsts) {
    if (f === null || f === '' || seen.has(f)) return true;
    seen.add(f);
  }
  return false;
}

/** Reads a `{n}`, `{n,}` or `{n,m}` quantifier at `i`; null when the brace is a literal. */
function readBraces(src: string, i: number): { end: number; min: number; max: number } | null {
  const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i, i + 24));
  if (!m) return null;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
  return { end: i + m[0].length, min, max };
}

/** Returns why the pattern is unsafe, or null. Assumes it already compiles. */
export function unsafeRegexReason(src: string): string | null {
  if (src.length > MAX_FILE_REGEX_LENGTH) return `it is longer than ${MAX_FILE_REGEX_LENGTH} characters`;
  const stack: Frame[] = [newFrame()];
  let last: GroupInfo | 'atom' | null = null;
  const top = (): Frame => stack[stack.length - 1]!;
  const atom = (first: string | null): void => {
    const f = top();
    if (f.first === undefined) f.first = first;
    last = 'atom';
  };
  const quantify = (max: number, at: number): string | null => {
    const target = last;
    if (target === null) return null; // a quantifier with nothing to repeat cannot compile anyway
    top().variable = true;
    if (max > 1 && target !== 'atom' && (target.variable || target.ambiguous)) {
      return target.variable
        ? `the group repeated at position ${at + 1} contains a part that itself repeats (nested quantifiers such as (a+)+ can take exponential time)`
        : `the group repeated at position ${at + 1} has alternatives that can match the same text (such as (a|aa)+, which can take exponential time)`;
    }
    return null;
  };

  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      const n = src[i + 1] ?? '';
      if (/[1-9]/.test(n) || n === 'k') return `back-references such as \\${n === 'k' ? 'k<name>' : n} are not allowed (V8's linear-time engine cannot run them, so their time could not be bounded)`;
      atom(CLASS_ESCAPES.has(n) || /[0-9cuxfnrtv]/.test(n) ? null : n);
      if (n === 'b' || n === 'B') last = null; // word boundaries are assertions, not atoms
      i++;
    } else if (c === '[') {
      let j = i + 1;
      if (src[j] === '^') j++;
      while (j < src.length && src[j] !== ']') j += src[j] === '\\' ? 2 : 1;
      atom(null);
      i = j;
    } else if (c === '(') {
      let j = i + 1;
      if (src[j] === '?') {
        j++;
        const look = LOOKAROUNDS.find((l) => src.startsWith(l, i));
        if (look) return `it uses a ${LOOKAROUND_NAMES[look]} ${look} at position ${i + 1}, which V8's linear-time engine cannot run (lookarounds can take polynomial time on long paths)`;
        // Refused by name, not left to the engine: Node 20 cannot compile them, newer V8 and Bun can,
        // so only a refusal gives every runtime the same answer.
        if (/^[a-zA-Z]*-?[a-zA-Z]*:/.test(src.slice(j)) && src[j] !== ':') return `it uses inline flags ${src.slice(i, src.indexOf(':', j) + 1)} at position ${i + 1}, which V8's linear-time engine cannot run and Node 20 cannot compile`;
        if (src[j] === '<' && src[j + 1] !== '=' && src[j + 1] !== '!') {
          const close = src.indexOf('>', j);
          j = close < 0 ? j : close + 1;
        } else {
          j += src[j] === '<' ? 2 : 1;
        }
      }
      const f = top();
      if (f.first === undefined) f.first = null;
      stack.push(newFrame());
      i = j - 1;
      last = null;
    } else if (c === ')') {
      if (stack.length === 1) continue;
      const g = stack.pop()!;
      g.firsts.push(g.first ?? '');
      const info: GroupInfo = { variable: g.variable, ambiguous: g.ambiguous || branchesOverlap(g.firsts) };
      const parent = top();
      parent.variable ||= info.variable;
      parent.ambiguous ||= info.ambiguous;
      last = info;
    } else if (c === '|') {
      const f = top();
      f.firsts.push(f.first ?? '');
      f.first = undefined;
      last = null;
    } else if (c === '*' || c === '+' || c === '?') {
      const problem = quantify(c === '?' ? 1 : Infinity, i);
      if (problem) return problem;
      if (src[i + 1] === '?') i++; // lazy marker
      last = null;
    } else if (c === '{' && readBraces(src, i)) {
      const { end, min, max } = readBraces(src, i)!;
      if (min > MAX_REPEAT_COUNT || (max !== Infinity && max > MAX_REPEAT_COUNT)) {
        return `the count ${src.slice(i, end)} at position ${i + 1} is above ${MAX_REPEAT_COUNT}, more than V8's linear-time engine accepts`;
      }
      const problem = quantify(max, i);
      if (problem) return problem;
      i = end - 1;
      if (src[i + 1] === '?') i++;
      last = null;
    } else if (c === '^' || c === '$') {
      last = null;
    } else {
      atom(c === '.' ? null : c);
    }
  }
  return null;
}

/** Null when `source` is usable as a fileRegex, else a sentence saying why not. */
export function fileRegexProblem(source: string): string | null {
  try {
    new RegExp(source);
  } catch (err) {
    return `fileRegex is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`;
  }
  const reason = unsafeRegexReason(source) ?? linearEngineProblem(source);
  return reason === null ? null : `fileRegex ${JSON.stringify(source)} is refused because ${reason}`;
}

/** The authoritative check when this V8 has the linear engine: whatever it cannot compile is refused. */
function linearEngineProblem(source: string): string | null {
  if (!LINEAR_ENGINE) return null;
  try {
    new RegExp(source, 'l');
    return null;
  } catch {
    return 'V8\'s linear-time engine cannot run it, so its matching time could not be bounded';
  }
}
