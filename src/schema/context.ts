// Shared plumbing of the schema compiler: the compiled-check shape, the bounded issue report and
// the compile-time argument checks that raise SchemaCompileError. Never looks at validated values.
import { hasOwn } from './values.js';

export interface SchemaIssue { path: string; message: string; keyword: string }

/** A schema the compiler cannot honour: an unsupported keyword or a malformed keyword value. */
export class SchemaCompileError extends Error {
  readonly schemaPath: string;
  constructor(schemaPath: string, detail: string) {
    super(`invalid schema at ${schemaPath}: ${detail}`);
    this.name = 'SchemaCompileError';
    this.schemaPath = schemaPath;
  }
}

/** Appends issues about `value` (found at `path`) to `out`; never throws on any value. */
export type Check = (value: unknown, path: string, out: SchemaIssue[]) => void;

/** What a keyword compiler gets: its own value, its siblings, where it sits, and a way to compile subschemas. */
export interface KeywordContext {
  readonly schema: Readonly<Record<string, unknown>>;
  /** JSON pointer of the keyword, e.g. `#/properties/mode/minLength`. */
  readonly pointer: string;
  /** Compiles a subschema; null means it accepts every value, so callers can skip it. */
  sub(value: unknown, pointerSuffix: string): Check | null;
  /** Compiles (once per root) the location a local `$ref` names; null means it accepts every value. */
  ref(reference: string): Check | null;
  /** The schema a local `$ref` names, for reading at compile time only. */
  lookup(reference: string): unknown;
}

export type KeywordCompiler = (arg: unknown, ctx: KeywordContext) => Check | null;

/** Issues stop being collected past this many: one bad value must not produce a wall of text. */
export const MAX_ISSUES = 20;

export function report(out: SchemaIssue[], path: string, keyword: string, text: string): void {
  if (out.length >= MAX_ISSUES) return;
  out.push({ path, message: path === '' ? text : `${path}: ${text}`, keyword });
}

export const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

export function expectNonNegativeInteger(arg: unknown, ctx: KeywordContext): number {
  if (typeof arg !== 'number' || !Number.isInteger(arg) || arg < 0) {
    throw new SchemaCompileError(ctx.pointer, 'expected a non-negative integer');
  }
  return arg;
}

export function expectNumber(arg: unknown, ctx: KeywordContext): number {
  if (typeof arg !== 'number' || !Number.isFinite(arg)) throw new SchemaCompileError(ctx.pointer, 'expected a number');
  return arg;
}

export function expectSchemaArray(arg: unknown, ctx: KeywordContext): unknown[] {
  if (!Array.isArray(arg) || arg.length === 0) throw new SchemaCompileError(ctx.pointer, 'expected a non-empty array of schemas');
  return arg;
}

export function expectObject(arg: unknown, ctx: KeywordContext): Record<string, unknown> {
  if (typeof arg !== 'object' || arg === null || Array.isArray(arg)) throw new SchemaCompileError(ctx.pointer, 'expected an object');
  return arg as Record<string, unknown>;
}

export function expectStringArray(arg: unknown, ctx: KeywordContext): string[] {
  if (!Array.isArray(arg) || !arg.every((x) => typeof x === 'string')) {
    throw new SchemaCompileError(ctx.pointer, 'expected an array of strings');
  }
  return arg as string[];
}

/** The sibling keyword's value, read as own data only. */
export const sibling = (ctx: KeywordContext, keyword: string): unknown =>
  hasOwn(ctx.schema, keyword) ? ctx.schema[keyword] : undefined;
