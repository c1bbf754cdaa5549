// Turns a Roo fileRegex into OpenCode/Kilo permission globs that match exactly the same paths, or
// says why no exact translation exists. Pure string work; it never approximates.

// How it works. OpenCode matches a glob against the path relative to the project (separators
// `/`). Its matcher changed meaning over time: older releases read `*` as "any characters" and
// newer ones as "any characters but `/`", with `**` as "anything" and `**/` as "any leading
// folders, or none". The globs written here mean the same under both readings, for normalised
// relative paths (no leading `/`, no empty, `.` or `..` segments):
//   - a literal is itself (it must not hold `*`, `?` or `\`, which no glob can state literally);
//   - `.*` between two literals is `**`, except before a `/`, where `**/` would change meaning:
//     there it is the pair `*` and `*/**` (one folder name, or several);
//   - a leading `.*` (an unanchored start) is the pair `*X` and `**/*X`;
//   - a trailing `.*` (an unanchored end) is `**`.
// The regex is read by a small parser that accepts literals, escapes of punctuation, `.*`,
// groups with `|`, `?` after a character or group, and character classes of a few characters; the
// alternatives are expanded into plain sequences first. Anything else is refused with its reason.

export type GlobTranslation = { ok: true; globs: string[] } | { ok: false; reason: string };

type Token = { lit: string } | { any: true } | { start: true } | { end: true };
type Seq = Token[];

const MAX_SEQUENCES = 64;
const MAX_CLASS = 16;

class Untranslatable extends Error {}

/** Characters an escape may make literal. */
const PUNCT = new Set([...'./-_()[]{}+$^|#%&,:;<=>@!~\'" `']);
/** Characters that can stand for themselves in a glob. */
const GLOB_UNSAFE = /[*?\\]/;

class Parser {
  #at = 0;
  constructor(private readonly src: string) {}

  parse(): Seq[] {
    const out = this.#alt();
    if (this.#at < this.src.length) throw new Untranslatable(`unbalanced ")" at position ${this.#at + 1}`);
    return out;
  }

  #alt(): Seq[] {
    const out: Seq[] = [...this.#seq()];
    while (this.src[this.#at] === '|') {
      this.#at++;
      out.push(...this.#seq());
      if (out.length > MAX_SEQUENCES) throw new Untranslatable(`more than ${MAX_SEQUENCES} alternatives`);
    }
    return out;
  }

  #seq(): Seq[] {
    let seqs: Seq[] = [[]];
    while (this.#at < this.src.length && this.src[this.#at] !== '|' && this.src[this.#at] !== ')') {
      let choices = this.#atom();
      const q = this.src[this.#at];
      if (q === '?') {
        this.#at++;
        choices = [[], ...choices];
      } else if (q === '+' || q === '*' || q === '{') {
        throw new Untranslatable(`the quantifier "${q}" (only ".*" and "?" have exact globs)`);
      }
      seqs = seqs.flatMap((s) => choices.map((c) => [...s, ...c]));
      if (seqs.length > MAX_SEQUENCES) throw new Untranslatable(`more than ${MAX_SEQUENCES} alternatives`);
    }
    return seqs;
  }

  /** One atom as its alternatives (each a token sequence). */
  #atom(): Seq[] {
    const ch = this.src[this.#at]!;
    this.#at++;
    switch (ch) {
      case '^': return [[{ start: true }]];
      case '$': return [[{ end: true }]];
      case '.': {
        if (this.src[this.#at] !== '*') throw new Untranslatable('"." outside ".*" (one unknown character has no exact glob)');
        this.#at++;
        if (this.src[this.#at] === '?') this.#at++; // lazy: same paths
        return [[{ any: true }]];
      }
      case '(': {
        if (this.src.startsWith('?:', this.#at)) this.#at += 2;
        else if (this.src[this.#at] === '?') throw new Untranslatable('lookaround or named groups');
        const inner = this.#alt();
        if (this.src[this.#at] !== ')') throw new Untranslatable('a group that is not closed');
        this.#at++;
        return inner;
      }
      case '[': return this.#klass();
      case '\\': {
        const e = this.src[this.#at];
        this.#at++;
        if (e === undefined) throw new Untranslatable('a trailing backslash');
        if (!PUNCT.has(e)) throw new Untranslatable(`the escape "\\${e}"`);
        return [[{ lit: e }]];
      }
      case '*': case '+': case '?': case '{': case '}':
        throw new Untranslatable(`"${ch}" at position ${this.#at}`);
      default:
        return [[{ lit: ch }]];
    }
  }

  #klass(): Seq[] {
    const chars: string[] = [];
    if (this.src[this.#at] === '^') throw new Untranslatable('a negated character class');
    while (this.src[this.#at] !== ']') {
      let c = this.src[this.#at];
      if (c === undefined) throw new Untranslatable('a character class that is not closed');
      this.#at++;
      if (c === '\\') {
        c = this.src[this.#at];
        this.#at++;
        if (c === undefined || !PUNCT.has(c)) throw new Untranslatable(`the escape "\\${c ?? ''}" in a character class`);
      } else if (this.src[this.#at] === '-' && this.src[this.#at + 1] !== ']' && this.src[this.#at + 1] !== undefined) {
        const to = this.src[this.#at + 1]!;
        this.#at += 2;
        const [a, b] = [c.charCodeAt(0), to.charCodeAt(0)];
        if (b < a || b - a >= MAX_CLASS) throw new Untranslatable(`the range ${c}-${to}`);
        for (let k = a; k <= b; k++) chars.push(String.fromCharCode(k));
        continue;
      }
      chars.push(c);
    }
    this.#at++;
    if (chars.length === 0 || chars.length > MAX_CLASS) throw new Untranslatable(`a character class of ${chars.length} characters`);
    return [...new Set(chars)].map((c) => [{ lit: c }]);
  }
}

type Piece = { lit: string } | { any: true };

/** Anchors resolved: a sequence of literals and ANY, or null when it can match no path. */
function normalise(seq: Seq): Piece[] | null {
  const starts = seq.filter((t) => 'start' in t).length;
  const ends = seq.filter((t) => 'end' in t).length;
  if (starts > 1 || ends > 1) throw new Untranslatable('"^" or "$" used twice in one alternative');
  if (starts === 1 && !('start' in seq[0]!)) throw new Untranslatable('"^" that is not at the start');
  if (ends === 1 && !('end' in seq[seq.length - 1]!)) throw new Untranslatable('"$" that is not at the end');
  const body: Piece[] = [];
  if (starts === 0) body.push({ any: true });
  for (const t of seq) {
    if ('lit' in t || 'any' in t) body.push(t);
  }
  if (ends === 0) body.push({ any: true });
  const merged: Piece[] = [];
  for (const p of body) {
    const last = merged[merged.length - 1];
    if (last && 'any' in last && 'any' in p) continue;
    if (last && 'lit' in last && 'lit' in p) merged[merged.length - 1] = { lit: last.lit + p.lit };
    else merged.push(p);
  }
  if (merged.length === 0) return null; // `^$`: only the empty path, which no file has
  return merged;
}

function globsOf(pieces: Piece[]): string[] {
  let variants = [''];
  pieces.forEach((p, i) => {
    if ('lit' in p) {
      if (GLOB_UNSAFE.test(p.lit)) throw new Untranslatable(`the literal ${JSON.stringify(p.lit)} (a glob cannot say "*", "?" or "\\" literally)`);
      variants = variants.map((v) => v + p.lit);
      return;
    }
    const next = pieces[i + 1];
    if (next === undefined) variants = variants.map((v) => `${v}**`);
    else if ((next as { lit: string }).lit.startsWith('/')) variants = variants.flatMap((v) => [`${v}*`, `${v}*/**`]);
    else if (i === 0) variants = ['*', '**/*'];
    else variants = variants.map((v) => `${v}**`);
  });
  return variants;
}

/** The exact glob translation of `fileRegex`, or the reason there is none. */
export function regexToGlobs(fileRegex: string): GlobTranslation {
  try {
    const globs: string[] = [];
    for (const seq of new Parser(fileRegex).parse()) {
      const pieces = normalise(seq);
      if (pieces === null) continue;
      for (const g of globsOf(pieces)) if (!globs.includes(g)) globs.push(g);
    }
    if (globs.length > MAX_SEQUENCES) throw new Untranslatable(`more than ${MAX_SEQUENCES} globs`);
    return { ok: true, globs };
  } catch (err) {
    if (err instanceof Untranslatable) return { ok: false, reason: `no exact glob for ${JSON.stringify(fileRegex)}: ${err.message}` };
    throw err;
  }
}
