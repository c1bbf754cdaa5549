// Turns scalar source text into values: quoted-string escapes and line folding, plain-scalar folding,
// block-scalar folding/chomping and YAML 1.2 core-schema resolution. Pure functions: no cursor, no I/O.

/** Single-character escapes of double-quoted scalars (YAML 1.2 §5.7), one table. */
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b',
  ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029',
};

/** Hex digits expected after \x, \u and \U. */
const HEX_ESCAPE_LENGTH: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

const HEX = /^[0-9a-fA-F]+$/;

export type BadEscape = (offsetInBody: number, sequence: string) => never;

function isSpaceOrTab(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t';
}

/**
 * Decodes the text between the quotes of a double-quoted scalar. A line break folds to a space, or
 * to n newlines when n empty lines follow; white space around breaks is dropped; "\" before a break
 * joins the lines. Surrogate pairs written as two \u escapes combine as in JSON.
 */
export function decodeDoubleQuoted(body: string, bad: BadEscape): string {
  const out: string[] = [];
  let runStart = 0; // start of the pending run of ordinary characters
  let i = 0;
  const flush = (end: number): void => {
    if (end > runStart) out.push(body.slice(runStart, end));
  };
  while (i < body.length) {
    const ch = body[i];
    if (ch === '\\') {
      flush(i);
      const next = body[i + 1];
      if (next === '\n') {
        i += 2;
        while (isSpaceOrTab(body[i])) i += 1;
      } else if (next !== undefined && next in HEX_ESCAPE_LENGTH) {
        const length = HEX_ESCAPE_LENGTH[next] as number;
        const digits = body.slice(i + 2, i + 2 + length);
        if (digits.length !== length || !HEX.test(digits)) bad(i, body.slice(i, i + 2 + length));
        const code = parseInt(digits, 16);
        if (code > 0x10ffff) bad(i, body.slice(i, i + 2 + length));
        out.push(String.fromCodePoint(code));
        i += 2 + length;
      } else {
        const simple = next === undefined ? undefined : SIMPLE_ESCAPES[next];
        if (simple === undefined) bad(i, body.slice(i, i + 2));
        out.push(simple);
        i += 2;
      }
      runStart = i;
    } else if (ch === ' ' || ch === '\t' || ch === '\n') {
      // White space is kept unless a line break follows it.
      let j = i;
      while (isSpaceOrTab(body[j])) j += 1;
      if (body[j] !== '\n') {
        i = j;
        continue;
      }
      flush(i);
      let breaks = 0;
      while (body[j] === '\n' || isSpaceOrTab(body[j])) {
        if (body[j] === '\n') breaks += 1;
        j += 1;
      }
      out.push(breaks === 1 ? ' ' : '\n'.repeat(breaks - 1));
      i = j;
      runStart = i;
    } else {
      i += 1;
    }
  }
  flush(body.length);
  return out.join('');
}

/** Joins the lines of a flow scalar the way YAML folds them: one break is a space, n empty lines are n newlines. */
export function foldLines(lines: readonly string[], emptyBefore: readonly number[]): string {
  if (lines.length === 1) return lines[0] as string;
  const out: string[] = [lines[0] as string];
  for (let k = 1; k < lines.length; k += 1) {
    const empties = emptyBefore[k] ?? 0;
    out.push(empties === 0 ? ' ' : '\n'.repeat(empties), lines[k] as string);
  }
  return out.join('');
}

/** Decodes the text between the quotes of a single-quoted scalar ('' is a quote; lines fold). */
export function decodeSingleQuoted(body: string): string {
  if (!body.includes('\n')) return body.replaceAll("''", "'");
  const raw = body.split('\n');
  const lines: string[] = [];
  const emptyBefore: number[] = [];
  let empties = 0;
  raw.forEach((line, index) => {
    const first = index === 0;
    const last = index === raw.length - 1;
    const text = first ? line.replace(/[ \t]+$/, '') : last ? line.replace(/^[ \t]+/, '') : line.trim();
    if (text === '' && !first && !last) {
      empties += 1;
      return;
    }
    lines.push(text);
    emptyBefore.push(empties);
    empties = 0;
  });
  return foldLines(lines, emptyBefore).replaceAll("''", "'");
}

export type Chomping = 'strip' | 'clip' | 'keep';

/**
 * Builds a block scalar's value from its body lines (the text after the header line, split on "\n";
 * a final "" stands for the last line break). `indent` is the content indentation to remove.
 */
export function blockScalarValue(pieces: readonly string[], folded: boolean, chomping: Chomping, indent: number): string {
  const spaces = (piece: string): number => {
    let n = 0;
    while (piece.charCodeAt(n) === 32) n += 1;
    return n;
  };
  const isEmpty = (piece: string): boolean => spaces(piece) === piece.length;
  const beyond = (piece: string): string => (piece.length > indent ? piece.slice(indent) : '');

  let trailStart = pieces.length;
  while (trailStart > 0 && isEmpty(pieces[trailStart - 1] as string)) trailStart -= 1;
  if (trailStart === 0) return chomping === 'keep' && pieces.length > 0 ? '\n'.repeat(Math.max(1, pieces.length - 1)) : '';

  let contentStart = 0;
  while (isEmpty(pieces[contentStart] as string)) contentStart += 1;
  const out: string[] = [];
  for (let i = 0; i < contentStart; i += 1) out.push(beyond(pieces[i] as string), '\n');

  let sep = '';
  let previousMoreIndented = false;
  for (let i = contentStart; i < trailStart; i += 1) {
    const piece = pieces[i] as string;
    if (!folded) {
      out.push(sep, beyond(piece));
      sep = '\n';
      continue;
    }
    const lead = spaces(piece);
    if (lead > indent || piece[lead] === '\t') {
      // More-indented lines keep their line breaks in folded scalars.
      if (sep === ' ') sep = '\n';
      else if (!previousMoreIndented && sep === '\n') sep = '\n\n';
      out.push(sep, beyond(piece));
      sep = '\n';
      previousMoreIndented = true;
    } else if (lead === piece.length) {
      if (sep === '\n') out.push('\n');
      else sep = '\n';
    } else {
      out.push(sep, piece.slice(lead));
      sep = ' ';
      previousMoreIndented = false;
    }
  }
  if (chomping === 'clip') out.push('\n');
  else if (chomping === 'keep') {
    for (let i = trailStart; i < pieces.length; i += 1) out.push('\n', beyond(pieces[i] as string));
  }
  const value = out.join('');
  return chomping === 'keep' && !value.endsWith('\n') ? `${value}\n` : value;
}

/** YAML 1.2 core-schema patterns, tried in this order (one table). */
const CORE_SCALARS: ReadonlyArray<readonly [RegExp, (text: string) => unknown]> = [
  [/^(?:~|null|Null|NULL)$/, () => null],
  [/^(?:true|True|TRUE)$/, () => true],
  [/^(?:false|False|FALSE)$/, () => false],
  [/^0o[0-7]+$/, (t) => parseInt(t.slice(2), 8)],
  [/^[-+]?[0-9]+$/, (t) => parseInt(t, 10)],
  [/^0x[0-9a-fA-F]+$/, (t) => parseInt(t.slice(2), 16)],
  [/^[-+]?\.(?:inf|Inf|INF)$/, (t) => (t.startsWith('-') ? -Infinity : Infinity)],
  [/^\.(?:nan|NaN|NAN)$/, () => NaN],
  [/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/, (t) => parseFloat(t)],
];

/** First characters that can begin a non-string core scalar; anything else is a string at once. */
const CORE_FIRST = new Set('~nNtTfF0123456789+-.');

/** Resolves an untagged plain scalar with the YAML 1.2 core schema (yes/no/on/off stay strings). */
export function resolvePlain(text: string): unknown {
  if (text === '' || !CORE_FIRST.has(text[0] as string)) return text;
  for (const [pattern, convert] of CORE_SCALARS) if (pattern.test(text)) return convert(text);
  return text;
}

/** Applies a core tag (!!str, !!int, …) or the non-specific "!" to a scalar; other tags are ignored. */
export function applyScalarTag(tag: string, text: string, plainValue: unknown): unknown {
  switch (tag) {
    case '!':
    case '!!str':
      return text;
    case '!!null':
    case '!!bool':
    case '!!int':
    case '!!float':
      return resolvePlain(text);
    default:
      return plainValue;
  }
}
