// Local references for the schema compiler: parsing a `$ref` fragment into a JSON pointer, finding
// its target inside the root schema, and the guard that bounds recursion through cyclic refs.
// Never fetches anything: a reference that does not start with "#" is refused at compile time.
import {
  type Check, type KeywordCompiler, SchemaCompileError, escapePointer, expectObject, report,
} from './context.js';
import { hasOwn } from './values.js';

/**
 * How many cyclic `$ref` hops one validation may be nested in. A recursive schema walks along the
 * value, so without a bound a value nested thousands deep would exhaust the stack; past this depth
 * the value is reported instead.
 */
export const MAX_REF_DEPTH = 400;

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * Splits a reference such as `#/definitions/a~1b` or `#/$defs/caf%C3%A9` into its pointer
 * segments (percent-decoding first, then `~1` → `/` and `~0` → `~`). `where` is the schema
 * location of the `$ref` keyword, used in error messages.
 */
export function parseLocalRef(ref: string, where: string): string[] {
  if (!ref.startsWith('#')) {
    throw new SchemaCompileError(where, `remote reference ${JSON.stringify(ref)} is not supported; only "#..." pointers into the same schema are`);
  }
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    throw new SchemaCompileError(where, `reference ${JSON.stringify(ref)} has invalid percent-encoding`);
  }
  if (fragment === '') return [];
  if (!fragment.startsWith('/')) {
    throw new SchemaCompileError(where, `reference ${JSON.stringify(ref)} is an anchor, not a JSON pointer; anchors are not supported`);
  }
  return fragment.slice(1).split('/').map((raw) => {
    if (/~(?![01])/.test(raw)) throw new SchemaCompileError(where, `reference ${JSON.stringify(ref)} has a "~" not followed by 0 or 1`);
    return raw.replace(/~1/g, '/').replace(/~0/g, '~');
  });
}

/** The pointer in the compiler's own spelling (`#/a~1b`), so one location has one cache key. */
export const pointerOf = (segments: readonly string[]): string =>
  segments.reduce((acc, seg) => `${acc}/${escapePointer(seg)}`, '#');

/** The value at `segments` inside `root`, walking own properties and array indexes only. */
export function resolvePointer(root: unknown, segments: readonly string[], ref: string, where: string): unknown {
  let node: unknown = root;
  for (const seg of segments) {
    if (Array.isArray(node) && ARRAY_INDEX.test(seg) && Number(seg) < node.length) node = node[Number(seg)];
    else if (typeof node === 'object' && node !== null && !Array.isArray(node) && hasOwn(node, seg)) node = (node as Record<string, unknown>)[seg];
    else throw new SchemaCompileError(where, `reference ${JSON.stringify(ref)} points at nothing in this schema`);
  }
  return node;
}

/** One compiled location: filled in once its compilation ends; `check` stays null if it accepts everything. */
export interface Cell { check: Check | null; done: boolean }

/** Counts the cyclic hops in progress; one per compiled document, safe because validation is synchronous. */
export interface DepthCounter { depth: number }

/**
 * The check for a reference back into a location still being compiled (the only way a cycle
 * forms). It reads the cell when called, after compilation has filled it, and refuses to go
 * deeper than MAX_REF_DEPTH.
 */
export function cyclicRef(cell: Cell, counter: DepthCounter): Check {
  return (v, p, out) => {
    const inner = cell.check;
    if (inner === null) return;
    if (counter.depth >= MAX_REF_DEPTH) {
      report(out, p, '$ref', `the value is nested more than ${MAX_REF_DEPTH} levels deep through a recursive schema`);
      return;
    }
    counter.depth++;
    try {
      inner(v, p, out);
    } finally {
      counter.depth--;
    }
  };
}

/**
 * A cycle in the graph of same-value links (location → locations it applies to the very same
 * value) reachable from `starts`, as the list of pointers around it, or undefined. Such a cycle
 * (`{"$ref": "#"}`, or `a` → allOf → `$ref` → `a`) would recurse forever without consuming the value.
 */
export function findStationaryCycle(links: ReadonlyMap<string, ReadonlySet<string>>, starts: readonly string[]): string[] | undefined {
  const finished = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (node: string): string[] | undefined => {
    if (onPath.has(node)) return [...path.slice(path.indexOf(node)), node];
    if (finished.has(node)) return undefined;
    path.push(node);
    onPath.add(node);
    for (const next of links.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    path.pop();
    onPath.delete(node);
    finished.add(node);
    return undefined;
  };
  for (const start of starts) {
    const cycle = visit(start);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/** `$ref`: in 2020-12 it applies alongside its sibling keywords, so it is just one more check. */
export const compileRef: KeywordCompiler = (arg, ctx) => {
  if (typeof arg !== 'string') throw new SchemaCompileError(ctx.pointer, 'expected a string');
  return ctx.ref(arg);
};

/** `definitions` / `$defs`: each entry is compiled so a bad one fails early, but none is applied here. */
export const compileDefinitions: KeywordCompiler = (arg, ctx) => {
  const defs = expectObject(arg, ctx);
  for (const name of Object.keys(defs)) ctx.sub(defs[name], `/${escapePointer(name)}`);
  return null;
};
