// Read-only helpers over untrusted JSON values for the schema validator: type names, equality,
// canonical keys, code-point length, short renderings and issue paths. Never mutates a value,
// never recurses along the value (it may be nested far deeper than the stack), never walks a prototype.

export const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

export const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON type of a value as a schema author names it ("integer" is never returned: it is a number). */
export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * JSON equality: objects compare key-order-insensitively, arrays in order, numbers by value
 * (1 and 1.0 are one number once parsed). Walks both values with an explicit stack.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: unknown[] = [a, b];
  while (stack.length > 0) {
    const y = stack.pop();
    const x = stack.pop();
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    const xArr = Array.isArray(x);
    if (xArr !== Array.isArray(y)) return false;
    if (xArr) {
      const xs = x as unknown[];
      const ys = y as unknown[];
      if (xs.length !== ys.length) return false;
      for (let i = 0; i < xs.length; i++) stack.push(xs[i], ys[i]);
      continue;
    }
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    const keys = Object.keys(xo);
    if (keys.length !== Object.keys(yo).length) return false;
    for (const k of keys) {
      if (!hasOwn(yo, k)) return false;
      stack.push(xo[k], yo[k]);
    }
  }
  return true;
}

/** A piece of already-rendered text on the canonicalisation stack (as opposed to a value). */
class Text {
  constructor(readonly text: string) {}
}

/**
 * A string equal for two values exactly when jsonEqual says they are equal (object keys sorted,
 * numbers as JavaScript prints them), so uniqueness can be decided with a Map in linear time.
 */
export function canonicalKey(value: unknown): string {
  const parts: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x instanceof Text) { parts.push(x.text); continue; }
    if (typeof x === 'string') { parts.push(JSON.stringify(x)); continue; }
    if (typeof x !== 'object' || x === null) { parts.push(String(x)); continue; }
    if (Array.isArray(x)) {
      stack.push(new Text(']'));
      for (let i = x.length - 1; i >= 0; i--) {
        stack.push(x[i] as unknown);
        if (i > 0) stack.push(new Text(','));
      }
      parts.push('[');
      continue;
    }
    const o = x as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    stack.push(new Text('}'));
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      stack.push(o[k], new Text(`${JSON.stringify(k)}:`));
      if (i > 0) stack.push(new Text(','));
    }
    parts.push('{');
  }
  return parts.join('');
}

/** Length in Unicode code points: a surrogate pair counts once, a lone surrogate once. */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { n--; i++; }
    }
  }
  return n;
}

const SHORT = 40;

/** A short rendering of an untrusted value for a message; containers are named, not printed. */
export function describeValue(v: unknown): string {
  if (typeof v === 'string') return v.length > SHORT ? `${JSON.stringify(v.slice(0, SHORT))}…` : JSON.stringify(v);
  if (Array.isArray(v)) return v.length === 1 ? 'an array of 1 item' : `an array of ${v.length} items`;
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'object') return 'an object';
  return typeof v;
}

/** A rendering of a trusted schema constant (enum member, const), cut short if long. */
export function describeConstant(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 2 * SHORT ? `${text.slice(0, 2 * SHORT)}…` : text;
}

export const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** How a property key joins a path: `.name` after a parent, `name` at the root, `["odd key"]` for odd keys. */
export interface KeySegment { readonly dotted: string; readonly bare: string }

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function keySegment(key: string): KeySegment {
  if (PLAIN_KEY.test(key)) return { dotted: `.${key}`, bare: key };
  const quoted = `[${JSON.stringify(key)}]`;
  return { dotted: quoted, bare: quoted };
}

export const childPath = (path: string, seg: KeySegment): string => (path === '' ? seg.bare : path + seg.dotted);
export const indexPath = (path: string, index: number): string => `${path}[${index}]`;
