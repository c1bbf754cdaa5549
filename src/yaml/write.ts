// A small YAML emitter for plain data (mappings, sequences, strings, numbers, booleans, null),
// block style only. It never emits anything a reader could take for another type or value:
// every string that is not obviously plain is double-quoted with escapes.

export type Plain = null | boolean | number | string | Plain[] | { [key: string]: Plain };

/** Words YAML 1.1 or 1.2 readers may turn into booleans or null (compared lower-cased). */
const RESERVED = new Set(['true', 'false', 'yes', 'no', 'on', 'off', 'y', 'n', 'null', '~']);

/** Plain only when it starts with a letter and holds letters, digits, space, `_ . / -` and ends with no space. */
const PLAIN = /^[A-Za-z](?:[A-Za-z0-9_./ -]*[A-Za-z0-9_./-])?$/;

/**
 * Characters always written as escapes: controls, the line/paragraph separators and BOM, and the
 * characters Roo's text cleaning rewrites before parsing (no-break space, zero-width characters,
 * curly quotes, dashes), so the written text reads back as the same string after cleaning.
 */
const MUST_ESCAPE = /[\u0000-\u001f\u007f-\u009f\u00a0\u200b-\u200d\u2010-\u2015\u2018\u2019\u201c\u201d\u2028\u2029\u2212\ufeff\ufffe\uffff]/;

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\', '"': '\\"', '\n': '\\n', '\t': '\\t', '\r': '\\r', '\0': '\\0',
};

function isPlainString(s: string): boolean {
  return PLAIN.test(s) && !RESERVED.has(s.toLowerCase());
}

/** A double-quoted scalar; lone surrogates (which no YAML text can hold) become U+FFFD. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\\uFFFD';
    else if (MUST_ESCAPE.test(ch)) out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A multi-line string that a literal block (`|`) carries exactly, without escapes. */
function fitsLiteralBlock(s: string): boolean {
  if (!s.includes('\n') || !/\S/.test(s)) return false;
  if (/[\r\t]/.test(s) || MUST_ESCAPE.test(s.replace(/\n/g, ''))) return false;
  if (/[\ud800-\udfff]/.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) return false;
  const lines = s.split('\n');
  // A leading space on the first text line would need an indentation indicator; a line of spaces
  // only would be read as an empty line. Both go double-quoted instead.
  if (/^ /.test(lines.find((l) => l !== '') ?? '')) return false;
  if (lines.some((l) => l.length > 0 && l.trim() === '')) return false;
  return true;
}

function literalBlock(s: string, indent: number): string[] {
  const trailing = /\n*$/.exec(s)?.[0].length ?? 0;
  const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+';
  const body = trailing === 0 ? s : s.slice(0, s.length - trailing);
  const pad = ' '.repeat(indent);
  const lines = body.split('\n').map((l) => (l === '' ? '' : pad + l));
  // With keep-chomping the extra newlines are written as empty lines after the text.
  for (let i = 1; i < trailing; i++) lines.push('');
  return [`|${chomp}`, ...lines];
}

function scalar(v: null | boolean | number | string): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return '.nan';
    if (!Number.isFinite(v)) return v > 0 ? '.inf' : '-.inf';
    return Object.is(v, -0) ? '-0' : String(v);
  }
  return isPlainString(v) ? v : quote(v);
}

const isMap = (v: Plain): v is { [key: string]: Plain } => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The text after `key:` or `- ` for a value that fits on that line, or undefined. */
function inline(v: Plain): string | undefined {
  if (Array.isArray(v)) return v.length === 0 ? '[]' : undefined;
  if (isMap(v)) return Object.keys(v).length === 0 ? '{}' : undefined;
  if (typeof v === 'string' && fitsLiteralBlock(v)) return undefined;
  return scalar(v);
}

/** Lines of a non-inline value whose first line starts at column `indent`. */
function block(v: Plain, indent: number): string[] {
  const pad = ' '.repeat(indent);
  const out: string[] = [];
  if (Array.isArray(v)) {
    for (const item of v) {
      const one = inline(item);
      if (one !== undefined) { out.push(`${pad}- ${one}`); continue; }
      if (typeof item === 'string') {
        const [head, ...rest] = literalBlock(item, indent + 2);
        out.push(`${pad}- ${head}`, ...rest);
        continue;
      }
      const child = block(item, indent + 2);
      out.push(`${pad}- ${(child[0] ?? '').slice(indent + 2)}`, ...child.slice(1));
    }
    return out;
  }
  if (isMap(v)) {
    for (const [key, value] of Object.entries(v)) {
      const k = isPlainString(key) ? key : quote(key);
      const one = inline(value);
      if (one !== undefined) { out.push(`${pad}${k}: ${one}`); continue; }
      if (typeof value === 'string') {
        const [head, ...rest] = literalBlock(value, indent + 2);
        out.push(`${pad}${k}: ${head}`, ...rest);
        continue;
      }
      out.push(`${pad}${k}:`, ...block(value, indent + 2));
    }
    return out;
  }
  return [pad + scalar(v)];
}

/** The YAML text of `value`, ending with a newline; `header` lines become `#` comments on top. */
export function toYaml(value: Plain, header: readonly string[] = []): string {
  const comments = header.map((h) => `# ${h.replace(/[\r\n]+/g, ' ')}`);
  const one = inline(value);
  const body = one !== undefined ? [one] : typeof value === 'string' ? literalBlock(value, 2) : block(value, 0);
  return [...comments, ...body, ''].join('\n');
}

/** Narrows unknown data to Plain (drops undefined and functions; rejects cycles). */
export function toPlain(v: unknown, seen: Set<object> = new Set()): Plain {
  if (v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v !== 'object') return null;
  if (seen.has(v)) throw new TypeError('toPlain: the value has a cycle');
  seen.add(v);
  try {
    if (Array.isArray(v)) return v.map((x) => toPlain(x === undefined ? null : x, seen));
    const out: { [key: string]: Plain } = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined && typeof x !== 'function') out[k] = toPlain(x, seen);
    return out;
  } finally {
    seen.delete(v);
  }
}
