// Reads a fileRegex (JavaScript syntax, no flags, as Roo compiles it) into a small tree of
// character sets, anchors, groups and repeats. Anything it cannot read exactly is refused with why.
import { DIGITS, DOT, SPACE, WORD, charSet, complement, union, units, type CharSet } from './char-sets.js';

export type RegexNode =
  | { kind: 'set'; set: CharSet }
  | { kind: 'start' }
  | { kind: 'end' }
  | { kind: 'boundary'; negated: boolean }
  | { kind: 'group'; alts: RegexNode[][] }
  | { kind: 'repeat'; node: RegexNode; min: number; max: number; lazy: boolean };

/** The alternatives of a whole pattern. */
export type RegexTree = RegexNode[][];

/** A construct this reader does not translate; the message names it and where it is. */
export class UnreadableRegex extends Error {}

const CLASS_ESCAPES: Readonly<Record<string, CharSet>> = {
  d: DIGITS, D: complement(DIGITS), w: WORD, W: complement(WORD), s: SPACE, S: complement(SPACE),
};
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b };
const QUANTIFIER = /^\{(\d+)(,(\d*))?\}/;

/** The tree of `source`, or UnreadableRegex. The source must already compile (Roo checked it). */
export function readRegex(source: string): RegexTree {
  const reader = new Reader(source);
  const alts = reader.alternatives();
  if (!reader.done()) throw new UnreadableRegex(`an unmatched ")" at position ${reader.at + 1}`);
  return alts;
}

/** True when no alternative anywhere asserts the start or a word boundary (see gemini-args.ts). */
export function onlyEndAnchored(tree: RegexTree): boolean {
  const ok = (n: RegexNode): boolean => {
    switch (n.kind) {
      case 'start': case 'boundary': return false;
      case 'group': return n.alts.every((seq) => seq.every(ok));
      case 'repeat': return ok(n.node);
      default: return true;
    }
  };
  return tree.every((seq) => seq.every(ok));
}

class Reader {
  at = 0;
  constructor(private readonly src: string) {}

  done(): boolean { return this.at >= this.src.length; }

  alternatives(): RegexNode[][] {
    const alts = [this.sequence()];
    while (this.src[this.at] === '|') {
      this.at++;
      alts.push(this.sequence());
    }
    return alts;
  }

  sequence(): RegexNode[] {
    const seq: RegexNode[] = [];
    while (!this.done() && this.src[this.at] !== '|' && this.src[this.at] !== ')') {
      const node = this.atom();
      const repeat = this.quantifier();
      if (repeat === null) { seq.push(node); continue; }
      if (node.kind === 'start' || node.kind === 'end' || node.kind === 'boundary') throw new UnreadableRegex(`a repeated assertion at position ${this.at}`);
      seq.push({ kind: 'repeat', node, ...repeat });
    }
    return seq;
  }

  quantifier(): { min: number; max: number; lazy: boolean } | null {
    const c = this.src[this.at];
    let min: number;
    let max: number;
    if (c === '*' || c === '+' || c === '?') {
      this.at++;
      [min, max] = c === '*' ? [0, Infinity] : c === '+' ? [1, Infinity] : [0, 1];
    } else {
      const m = c === '{' ? QUANTIFIER.exec(this.src.slice(this.at)) : null;
      if (m === null) return null;
      this.at += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    }
    const lazy = this.src[this.at] === '?';
    if (lazy) this.at++;
    return { min, max, lazy };
  }

  atom(): RegexNode {
    const start = this.at;
    const c = this.src[this.at++]!;
    switch (c) {
      case '^': return { kind: 'start' };
      case '$': return { kind: 'end' };
      case '.': return { kind: 'set', set: DOT };
      case '[': return { kind: 'set', set: this.klass() };
      case '\\': {
        const e = this.src[this.at];
        if (e === 'b' || e === 'B') { this.at++; return { kind: 'boundary', negated: e === 'B' }; }
        const escaped = this.escape(false);
        return { kind: 'set', set: typeof escaped === 'number' ? units(escaped) : escaped };
      }
      case '(': {
        if (this.src.startsWith('?:', this.at)) this.at += 2;
        else if (this.src.startsWith('?<', this.at) && !/^\?<[=!]/.test(this.src.slice(this.at))) {
          const close = this.src.indexOf('>', this.at);
          if (close < 0) throw new UnreadableRegex(`an unfinished group name at position ${start + 1}`);
          this.at = close + 1;
        } else if (this.src[this.at] === '?') {
          throw new UnreadableRegex(`the lookaround or group modifier at position ${start + 1}`);
        }
        const alts = this.alternatives();
        if (this.src[this.at] !== ')') throw new UnreadableRegex(`a group opened at position ${start + 1} that is not closed`);
        this.at++;
        return { kind: 'group', alts };
      }
      case '*': case '+': case '?':
        throw new UnreadableRegex(`"${c}" with nothing to repeat at position ${start + 1}`);
      case '{':
        if (QUANTIFIER.test(this.src.slice(start))) throw new UnreadableRegex(`a quantifier with nothing to repeat at position ${start + 1}`);
        return { kind: 'set', set: units(c.charCodeAt(0)) };
      default:
        return { kind: 'set', set: units(c.charCodeAt(0)) };
    }
  }

  /** After a backslash: one code unit, or a set for \d \w \s and their negations. */
  escape(inClass: boolean): number | CharSet {
    const at = this.at;
    const e = this.src[this.at++];
    if (e === undefined) throw new UnreadableRegex('a pattern that ends with a backslash');
    const set = CLASS_ESCAPES[e];
    if (set !== undefined) return set;
    const control = CONTROL_ESCAPES[e];
    if (control !== undefined) return control;
    if (inClass && e === 'b') return 0x08;
    if (e === '0' && !/[0-9]/.test(this.src[this.at] ?? '')) return 0;
    const hexDigits = e === 'x' ? 2 : e === 'u' ? 4 : 0;
    if (hexDigits > 0) {
      const digits = this.src.slice(this.at, this.at + hexDigits);
      if (!new RegExp(`^[0-9a-fA-F]{${hexDigits}}$`).test(digits)) throw new UnreadableRegex(`the escape "\\${e}${digits}" at position ${at}`);
      this.at += hexDigits;
      return parseInt(digits, 16);
    }
    // Letters and digits as identity escapes mean different things across engines and flags
    // (back-references, \c, \k, \p): only punctuation stands for itself here.
    if (/[A-Za-z0-9]/.test(e)) throw new UnreadableRegex(`the escape "\\${e}" at position ${at}`);
    return e.charCodeAt(0);
  }

  /** After `[`: the class's set, negation applied. */
  klass(): CharSet {
    const open = this.at - 1;
    const negated = this.src[this.at] === '^';
    if (negated) this.at++;
    const parts: CharSet[] = [];
    while (this.src[this.at] !== ']') {
      if (this.done()) throw new UnreadableRegex(`a character class opened at position ${open + 1} that is not closed`);
      const from = this.classAtom();
      if (this.src[this.at] === '-' && this.src[this.at + 1] !== ']' && this.at + 1 < this.src.length) {
        this.at++;
        const to = this.classAtom();
        if (typeof from !== 'number' || typeof to !== 'number') throw new UnreadableRegex(`a range with a class escape in the class at position ${open + 1}`);
        parts.push(units(from, to));
        continue;
      }
      parts.push(typeof from === 'number' ? units(from) : from);
    }
    this.at++;
    const set = union(...parts);
    return negated ? complement(set) : set;
  }

  classAtom(): number | CharSet {
    const c = this.src[this.at++]!;
    return c === '\\' ? this.escape(true) : c.charCodeAt(0);
  }
}

/** The sets a node can match as one code unit, when it is exactly that (a set, or a group of single sets). */
export function singleUnit(node: RegexNode): CharSet | null {
  if (node.kind === 'set') return node.set;
  if (node.kind !== 'group') return null;
  const sets = node.alts.map((seq) => (seq.length === 1 ? singleUnit(seq[0]!) : null));
  return sets.every((s) => s !== null) ? charSet(sets.flat() as [number, number][]) : null;
}

