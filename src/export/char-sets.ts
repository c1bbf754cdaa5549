// Sets of UTF-16 code units kept as sorted, merged ranges, and the regex class text that matches
// exactly one such set. Used to rewrite a fileRegex's classes for another engine; never runs a regex.

/** Inclusive ranges of code units, sorted and merged (two ranges never touch). */
export type CharSet = readonly (readonly [number, number])[];

const LAST_UNIT = 0xffff;

/** Sorts and merges any ranges into a CharSet. */
export function charSet(ranges: Iterable<readonly [number, number]>): CharSet {
  const sorted = [...ranges].filter(([lo, hi]) => lo <= hi).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** One code unit, or the units lo..hi. */
export function units(lo: number, hi = lo): CharSet { return [[lo, hi]]; }

export const union = (...sets: CharSet[]): CharSet => charSet(sets.flat());

export function complement(set: CharSet): CharSet {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of set) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= LAST_UNIT) out.push([next, LAST_UNIT]);
  return out;
}

export const intersect = (a: CharSet, b: CharSet): CharSet => complement(union(complement(a), complement(b)));

/** The set of the given characters (each a single code unit). */
export const chars = (text: string): CharSet => charSet([...text].map((c) => [c.charCodeAt(0), c.charCodeAt(0)] as const));

// JavaScript's own class escapes and `.` without flags (ECMA-262 WhiteSpace and LineTerminator).
export const DIGITS = units(0x30, 0x39);
export const WORD = union(DIGITS, units(0x41, 0x5a), units(0x61, 0x7a), chars('_'));
export const SPACE = charSet([
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
  [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
]);
/** What `.` matches: everything but the four line terminators. */
export const DOT = complement(chars('\n\r\u2028\u2029'));
export const ANY: CharSet = [[0, LAST_UNIT]];

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/**
 * One code unit as regex text that means only itself, inside or outside a class: letters and
 * digits as they are, anything else as `\xHH` or `\uHHHH`. So the text holds no quote, bracket,
 * parenthesis or quantifier character, and nothing outside printable ASCII.
 */
export function unitText(c: number): string {
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return String.fromCharCode(c);
  return c < 0x100 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`;
}

function rangesText(set: CharSet): string {
  return set.map(([lo, hi]) => (lo === hi ? unitText(lo) : hi === lo + 1 ? unitText(lo) + unitText(hi) : `${unitText(lo)}-${unitText(hi)}`)).join('');
}

/** Regex text matching exactly one code unit of `set`: a single unit, `[...]` or `[^...]` (the shorter), `[]` when empty. */
export function classText(set: CharSet): string {
  if (set.length === 1 && set[0]![0] === set[0]![1]) return unitText(set[0]![0]);
  const positive = `[${rangesText(set)}]`;
  const negative = `[^${rangesText(complement(set))}]`;
  return negative.length < positive.length ? negative : positive;
}
