// Compilers for the value keywords (type, enum, const, string, number, array and object keywords).
// Each returns a closure prepared once per schema; none of them mutates or copies the checked value.
import {
  type Check, type KeywordCompiler, type KeywordContext, MAX_ISSUES, SchemaCompileError, escapePointer,
  expectNonNegativeInteger, expectNumber, expectObject, expectSchemaArray, expectStringArray, report, sibling,
} from './context.js';
import {
  canonicalKey, childPath, codePointLength, describeConstant, describeValue, hasOwn, indexPath,
  isJsonObject, jsonEqual, keySegment, plural, typeName,
} from './values.js';

/** The type names a schema may use, each with its test. "integer" is a number with no fractional part. */
const TYPE_TESTS: Readonly<Record<string, (v: unknown) => boolean>> = {
  null: (v) => v === null,
  boolean: (v) => typeof v === 'boolean',
  object: isJsonObject,
  array: Array.isArray,
  number: (v) => typeof v === 'number',
  integer: Number.isInteger,
  string: (v) => typeof v === 'string',
};

export const listWithOr = (names: readonly string[]): string =>
  names.length <= 1 ? (names[0] ?? 'nothing') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;

/** Reads and checks a `type` value; shared with the node compiler, which records the types statically. */
export function typeNames(arg: unknown, ctx: KeywordContext): string[] {
  const names = typeof arg === 'string' ? [arg] : arg;
  if (!Array.isArray(names) || names.length === 0) throw new SchemaCompileError(ctx.pointer, 'expected a type name or a non-empty array of them');
  for (const n of names) {
    if (typeof n !== 'string' || !hasOwn(TYPE_TESTS, n)) throw new SchemaCompileError(ctx.pointer, `unknown type ${JSON.stringify(n)}`);
  }
  return names as string[];
}

export const compileType: KeywordCompiler = (arg, ctx) => {
  const names = typeNames(arg, ctx);
  const tests = names.map((n) => TYPE_TESTS[n]!);
  const expected = `expected ${listWithOr(names)}, got `;
  const single = tests.length === 1 ? tests[0]! : null;
  return (v, p, out) => {
    if (single !== null ? single(v) : tests.some((t) => t(v))) return;
    report(out, p, 'type', expected + typeName(v));
  };
};

const isContainer = (v: unknown): boolean => typeof v === 'object' && v !== null;

export const compileEnum: KeywordCompiler = (arg, ctx) => {
  if (!Array.isArray(arg)) throw new SchemaCompileError(ctx.pointer, 'expected an array');
  // Scalars are found with a Set (1 and 1.0 are one number); containers need structural equality.
  const scalars = new Set(arg.filter((m) => !isContainer(m)));
  const containers = arg.filter(isContainer);
  const shown = arg.slice(0, 10).map(describeConstant).join(', ') + (arg.length > 10 ? ', …' : '');
  // An empty enum is legal and admits nothing (the official suite checks it).
  const expected = arg.length === 0 ? 'expected no value at all (the enum is empty), got '
    : arg.length === 1 ? `expected ${shown}, got ` : `expected one of ${shown}, got `;
  return (v, p, out) => {
    if (isContainer(v) ? containers.some((m) => jsonEqual(m, v)) : scalars.has(v)) return;
    report(out, p, 'enum', expected + describeValue(v));
  };
};

export const compileConst: KeywordCompiler = (arg) => {
  const expected = `expected ${describeConstant(arg)}, got `;
  return (v, p, out) => { if (!jsonEqual(arg, v)) report(out, p, 'const', expected + describeValue(v)); };
};

// ---- strings (the node compiler calls these only for string values)

export const compileMinLength: KeywordCompiler = (arg, ctx) => {
  const min = expectNonNegativeInteger(arg, ctx);
  const want = `expected at least ${plural(min, 'character', 'characters')}, got `;
  return (v, p, out) => {
    const s = v as string;
    // A string has at least length/2 code points and at most length: count only when it matters.
    if (s.length / 2 >= min) return;
    const n = codePointLength(s);
    if (n < min) report(out, p, 'minLength', want + n);
  };
};

export const compileMaxLength: KeywordCompiler = (arg, ctx) => {
  const max = expectNonNegativeInteger(arg, ctx);
  const want = `expected at most ${plural(max, 'character', 'characters')}, got `;
  return (v, p, out) => {
    const s = v as string;
    if (s.length <= max) return;
    const n = codePointLength(s);
    if (n > max) report(out, p, 'maxLength', want + n);
  };
};

export const compilePattern: KeywordCompiler = (arg, ctx) => {
  if (typeof arg !== 'string') throw new SchemaCompileError(ctx.pointer, 'expected a string');
  let re: RegExp;
  try {
    re = new RegExp(arg, 'u');
  } catch (err) {
    throw new SchemaCompileError(ctx.pointer, `invalid regular expression: ${(err as Error).message}`);
  }
  const want = `expected a string matching the pattern ${JSON.stringify(arg)}, got `;
  return (v, p, out) => { if (!re.test(v as string)) report(out, p, 'pattern', want + describeValue(v)); };
};

// ---- numbers (called only for number values)

function numberBound(keyword: string, words: string, fails: (v: number, bound: number) => boolean): KeywordCompiler {
  return (arg, ctx) => {
    const bound = expectNumber(arg, ctx);
    const want = `expected ${words} ${bound}, got `;
    return (v, p, out) => { if (fails(v as number, bound)) report(out, p, keyword, want + String(v)); };
  };
}

export const compileMinimum = numberBound('minimum', 'at least', (v, b) => v < b);
export const compileMaximum = numberBound('maximum', 'at most', (v, b) => v > b);
export const compileExclusiveMinimum = numberBound('exclusiveMinimum', 'more than', (v, b) => v <= b);
export const compileExclusiveMaximum = numberBound('exclusiveMaximum', 'less than', (v, b) => v >= b);

// ---- arrays (called only for array values)

export const compilePrefixItems: KeywordCompiler = (arg, ctx) => {
  const checks = expectSchemaArray(arg, ctx).map((s, i) => ctx.sub(s, `/${i}`));
  return (v, p, out) => {
    const a = v as unknown[];
    const n = Math.min(a.length, checks.length);
    for (let i = 0; i < n && out.length < MAX_ISSUES; i++) checks[i]?.(a[i], indexPath(p, i), out);
  };
};

export const compileItems: KeywordCompiler = (arg, ctx) => {
  const prefix = sibling(ctx, 'prefixItems');
  const start = Array.isArray(prefix) ? prefix.length : 0;
  if (arg === false) {
    const want = `expected at most ${plural(start, 'item', 'items')}, got `;
    return (v, p, out) => { const n = (v as unknown[]).length; if (n > start) report(out, p, 'items', want + n); };
  }
  const check = ctx.sub(arg, '');
  if (check === null) return null;
  return (v, p, out) => {
    const a = v as unknown[];
    for (let i = start; i < a.length && out.length < MAX_ISSUES; i++) check(a[i], indexPath(p, i), out);
  };
};

export const compileMinItems: KeywordCompiler = (arg, ctx) => {
  const min = expectNonNegativeInteger(arg, ctx);
  const want = `expected at least ${plural(min, 'item', 'items')}, got `;
  return (v, p, out) => { const n = (v as unknown[]).length; if (n < min) report(out, p, 'minItems', want + n); };
};

export const compileMaxItems: KeywordCompiler = (arg, ctx) => {
  const max = expectNonNegativeInteger(arg, ctx);
  const want = `expected at most ${plural(max, 'item', 'items')}, got `;
  return (v, p, out) => { const n = (v as unknown[]).length; if (n > max) report(out, p, 'maxItems', want + n); };
};

export const compileUniqueItems: KeywordCompiler = (arg, ctx) => {
  if (typeof arg !== 'boolean') throw new SchemaCompileError(ctx.pointer, 'expected a boolean');
  if (!arg) return null;
  return (v, p, out) => {
    const a = v as unknown[];
    if (a.length < 2) return;
    const seen = new Map<string, number>();
    for (let i = 0; i < a.length; i++) {
      const key = canonicalKey(a[i]);
      const first = seen.get(key);
      if (first !== undefined) {
        report(out, p, 'uniqueItems', `expected unique items, got equal items at [${first}] and [${i}]`);
        return;
      }
      seen.set(key, i);
    }
  };
};

// ---- objects (called only for object values)

export const compileProperties: KeywordCompiler = (arg, ctx) => {
  const props = expectObject(arg, ctx);
  const entries = Object.keys(props).flatMap((key) => {
    const check = ctx.sub(props[key], `/${escapePointer(key)}`);
    return check === null ? [] : [{ key, seg: keySegment(key), check, parent: null as string | null, path: '' }];
  });
  if (entries.length === 0) return null;
  return (v, p, out) => {
    const o = v as Record<string, unknown>;
    for (const e of entries) {
      if (out.length >= MAX_ISSUES) return;
      if (!hasOwn(o, e.key)) continue;
      // The same parent path comes every time (a tool's "arguments"): its child path is built once.
      if (e.parent !== p) { e.parent = p; e.path = childPath(p, e.seg); }
      e.check(o[e.key], e.path, out);
    }
  };
};

export const compileRequired: KeywordCompiler = (arg, ctx) => {
  const names = expectStringArray(arg, ctx);
  if (names.length === 0) return null;
  const messages = names.map((n) => `missing required property ${JSON.stringify(n)}`);
  return (v, p, out) => {
    const o = v as Record<string, unknown>;
    for (let i = 0; i < names.length; i++) if (!hasOwn(o, names[i]!)) report(out, p, 'required', messages[i]!);
  };
};

export const compileAdditionalProperties: KeywordCompiler = (arg, ctx) => {
  const props = sibling(ctx, 'properties');
  // A Set, not an object, so a key like "__proto__" or "constructor" is never found by accident.
  const known = new Set(isJsonObject(props) ? Object.keys(props) : []);
  if (arg === false) {
    return (v, p, out) => {
      for (const key of Object.keys(v as object)) {
        if (out.length >= MAX_ISSUES) return;
        if (!known.has(key)) report(out, p, 'additionalProperties', `unexpected property ${JSON.stringify(key)}`);
      }
    };
  }
  const check: Check | null = ctx.sub(arg, '');
  if (check === null) return null;
  return (v, p, out) => {
    const o = v as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      if (out.length >= MAX_ISSUES) return;
      if (!known.has(key)) check(o[key], childPath(p, keySegment(key)), out);
    }
  };
};

function propertyCount(keyword: string, words: string, fails: (n: number, bound: number) => boolean): KeywordCompiler {
  return (arg, ctx) => {
    const bound = expectNonNegativeInteger(arg, ctx);
    const want = `expected ${words} ${plural(bound, 'property', 'properties')}, got `;
    return (v, p, out) => { const n = Object.keys(v as object).length; if (fails(n, bound)) report(out, p, keyword, want + n); };
  };
}

export const compileMinProperties = propertyCount('minProperties', 'at least', (n, b) => n < b);
export const compileMaxProperties = propertyCount('maxProperties', 'at most', (n, b) => n > b);
