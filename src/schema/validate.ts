// The JSON-Schema (2020-12 subset) validator for tool arguments, the config file and the MCP schemas:
// compiles a schema once into closures. Never silently ignores a keyword it does not know, never mutates input.
//
// How it works: a DocumentCompiler walks the root schema once. Each keyword in KEYWORDS has a
// compiler that returns a Check closure (or null when it can never fail); the node sorts them by
// the kind of value they constrain, so a call runs only the checks relevant to the value's type.
// Every location is compiled once and cached by its JSON pointer, which is what lets a local
// `$ref` reuse a closure and a recursive schema close its loop. Checking follows the schema, not
// the value; only a recursive `$ref` walks along the value, and that is bounded (MAX_REF_DEPTH),
// so a deeply nested value cannot exhaust the stack.
import {
  type Check, type KeywordCompiler, type KeywordContext, MAX_ISSUES, type SchemaIssue, SchemaCompileError, escapePointer, report,
} from './context.js';
import {
  compileAdditionalProperties, compileConst, compileEnum, compileExclusiveMaximum, compileExclusiveMinimum,
  compileItems, compileMaxItems, compileMaxLength, compileMaxProperties, compileMaximum, compileMinItems,
  compileMinLength, compileMinProperties, compileMinimum, compilePattern, compilePrefixItems, compileProperties,
  compileRequired, compileType, compileUniqueItems,
} from './keywords.js';
import { compileAllOf, compileAnyOf, compileNot, compileOneOf } from './combinators.js';
import {
  type Cell, type DepthCounter, compileDefinitions, compileRef, cyclicRef, findStationaryCycle, parseLocalRef, pointerOf,
  resolvePointer,
} from './refs.js';
import { hasOwn } from './values.js';

export { SchemaCompileError, type SchemaIssue } from './context.js';

export type JsonSchema = boolean | { [keyword: string]: unknown };

/** Which values a keyword constrains; 'annotation' keywords are accepted and have no effect. */
type Applies = 'annotation' | 'type' | 'any' | 'string' | 'number' | 'array' | 'object';

/** Every keyword the validator understands. Anything else in a schema is a SchemaCompileError. */
const KEYWORDS: Readonly<Record<string, readonly [Applies, KeywordCompiler | null]>> = {
  $schema: ['annotation', null],
  $id: ['annotation', null],
  $comment: ['annotation', null],
  title: ['annotation', null],
  description: ['annotation', null],
  default: ['annotation', null],
  examples: ['annotation', null],
  deprecated: ['annotation', null],
  readOnly: ['annotation', null],
  writeOnly: ['annotation', null],
  format: ['annotation', null],
  type: ['type', compileType],
  enum: ['any', compileEnum],
  const: ['any', compileConst],
  allOf: ['any', compileAllOf],
  anyOf: ['any', compileAnyOf],
  oneOf: ['any', compileOneOf],
  not: ['any', compileNot],
  minLength: ['string', compileMinLength],
  maxLength: ['string', compileMaxLength],
  pattern: ['string', compilePattern],
  minimum: ['number', compileMinimum],
  maximum: ['number', compileMaximum],
  exclusiveMinimum: ['number', compileExclusiveMinimum],
  exclusiveMaximum: ['number', compileExclusiveMaximum],
  prefixItems: ['array', compilePrefixItems],
  items: ['array', compileItems],
  minItems: ['array', compileMinItems],
  maxItems: ['array', compileMaxItems],
  uniqueItems: ['array', compileUniqueItems],
  properties: ['object', compileProperties],
  required: ['object', compileRequired],
  additionalProperties: ['object', compileAdditionalProperties],
  minProperties: ['object', compileMinProperties],
  maxProperties: ['object', compileMaxProperties],
  $ref: ['any', compileRef],
  // Containers of named schemas for $ref to point at: compiled (so a bad one is caught) but never applied.
  $defs: ['any', compileDefinitions],
  definitions: ['any', compileDefinitions],
};

/**
 * Keywords whose subschemas apply to the very value their schema applies to. A cycle of locations
 * linked only by these would never move along the value, so it is refused at compile time.
 */
const SAME_VALUE_KEYWORDS: ReadonlySet<string> = new Set(['allOf', 'anyOf', 'oneOf', 'not', '$ref']);

const rejectAll: Check = (_v, p, out) => report(out, p, 'false', 'no value is allowed here');

/** Runs a list of checks; a single check is returned as is to save a loop on the hot path. */
function sequence(checks: Check[]): Check | null {
  if (checks.length === 0) return null;
  if (checks.length === 1) return checks[0]!;
  return (v, p, out) => { for (const c of checks) c(v, p, out); };
}

/**
 * Compiles the locations of one root schema, each exactly once: every compiled location is kept
 * in a cache keyed by its JSON pointer, so a `$ref` to a location already compiled reuses its
 * closure, and a `$ref` back into a location still being compiled (a recursive schema) gets a
 * small indirection that reads the finished closure when called.
 */
class DocumentCompiler {
  readonly #root: unknown;
  readonly #cells = new Map<string, Cell>();
  /** Pointers of the locations being compiled, outermost first. */
  readonly #stack: string[] = [];
  /** For each location, the locations it applies to the same value (subschemas of allOf, not, $ref …). */
  readonly #sameValue = new Map<string, Set<string>>();
  readonly #counter: DepthCounter = { depth: 0 };
  /** Pointers cached during the current outermost compile, forgotten together if it fails. */
  readonly #journal: string[] = [];

  constructor(root: unknown) { this.#root = root; }

  /**
   * The check for `schema`, found at `pointer` in the root; null when it accepts every value.
   * `sameValue` says whether the location applies to the same value as the one compiling it.
   */
  at(schema: unknown, pointer: string, sameValue: boolean): Check | null {
    const parent = this.#stack[this.#stack.length - 1];
    if (parent !== undefined && sameValue) {
      const targets = this.#sameValue.get(parent) ?? new Set<string>();
      this.#sameValue.set(parent, targets.add(pointer));
    }
    const known = this.#cells.get(pointer);
    if (known !== undefined) return known.done ? known.check : cyclicRef(known, this.#counter);
    if (parent !== undefined) return this.#compile(schema, pointer);
    try {
      const check = this.#compile(schema, pointer);
      const cycle = findStationaryCycle(this.#sameValue, this.#journal);
      if (cycle !== undefined) {
        throw new SchemaCompileError(cycle[0]!, `reference cycle ${cycle.join(' → ')} never moves into a property or item, so checking it would never end`);
      }
      return check;
    } catch (err) {
      // A half-compiled location (or a closure pointing into one) must never be served later.
      for (const p of this.#journal) { this.#cells.delete(p); this.#sameValue.delete(p); }
      throw err;
    } finally {
      this.#journal.length = 0;
    }
  }

  #compile(schema: unknown, pointer: string): Check | null {
    const cell: Cell = { check: null, done: false };
    this.#cells.set(pointer, cell);
    this.#journal.push(pointer);
    this.#stack.push(pointer);
    try {
      cell.check = this.#node(schema, pointer);
    } finally {
      this.#stack.pop();
    }
    cell.done = true;
    return cell.check;
  }

  /** The check for the location a local reference names; `where` is the `$ref` keyword's own pointer. */
  ref(reference: string, where: string): Check | null {
    const segments = parseLocalRef(reference, where);
    return this.at(resolvePointer(this.#root, segments, reference, where), pointerOf(segments), true);
  }

  /** The schema a local reference names, for reading only (compile-time messages). */
  lookup(reference: string, where: string): unknown {
    return resolvePointer(this.#root, parseLocalRef(reference, where), reference, where);
  }

  #node(schema: unknown, pointer: string): Check | null {
    if (schema === true) return null;
    if (schema === false) return rejectAll;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new SchemaCompileError(pointer, 'expected a schema (an object or a boolean)');
    }
    const s = schema as Record<string, unknown>;
    const groups: Record<Exclude<Applies, 'annotation'>, Check[]> = {
      type: [], any: [], string: [], number: [], array: [], object: [],
    };
    for (const key of Object.keys(s)) {
      const entry = hasOwn(KEYWORDS, key) ? KEYWORDS[key] : undefined;
      const at = `${pointer}/${escapePointer(key)}`;
      if (entry === undefined) throw new SchemaCompileError(at, `unsupported keyword ${JSON.stringify(key)}`);
      const [applies, compile] = entry;
      if (applies === 'annotation' || compile === null) continue;
      const sameValue = SAME_VALUE_KEYWORDS.has(key);
      const ctx: KeywordContext = {
        schema: s,
        pointer: at,
        sub: (value, suffix) => this.at(value, at + suffix, sameValue),
        ref: (reference) => this.ref(reference, at),
        lookup: (reference) => this.lookup(reference, at),
      };
      const check = compile(s[key], ctx);
      if (check !== null) groups[applies].push(check);
    }
    return assemble(groups);
  }
}

/** Joins a node's checks into one closure that runs only the checks relevant to the value's type. */
function assemble(groups: Record<Exclude<Applies, 'annotation'>, Check[]>): Check | null {
  const typeCheck = sequence(groups.type);
  const any = sequence(groups.any);
  const str = sequence(groups.string);
  const num = sequence(groups.number);
  const arr = sequence(groups.array);
  const obj = sequence(groups.object);
  if (!typeCheck && !any && !str && !num && !arr && !obj) return null;
  return (v, p, out) => {
    if (typeCheck !== null) {
      // A value of the wrong type gets that one issue; its other keywords would only add noise.
      const before = out.length;
      typeCheck(v, p, out);
      if (out.length !== before) return;
    }
    if (any !== null) any(v, p, out);
    if (typeof v === 'string') { if (str !== null) str(v, p, out); }
    else if (typeof v === 'number') { if (num !== null) num(v, p, out); }
    else if (typeof v === 'object' && v !== null) {
      if (Array.isArray(v)) { if (arr !== null) arr(v, p, out); }
      else if (obj !== null) obj(v, p, out);
    }
  };
}

/**
 * Checks a value and lists at most 20 issues, each with a path rooted at `rootPath` (default "")
 * and a message naming what was expected and what came; an empty list means the value is valid.
 */
export type Validator = (value: unknown, rootPath?: string) => SchemaIssue[];

export interface CompileOptions {
  /** Validate against the subschema at this local pointer (`#/definitions/Name`) instead of the root. */
  readonly pointer?: string;
}

function toValidator(check: Check | null): Validator {
  return (value, rootPath = '') => {
    const out: SchemaIssue[] = [];
    if (check === null) return out;
    try {
      check(value, rootPath, out);
    } catch (err) {
      // Only a recursive schema walks along the value; when its levels are so elaborate that the
      // stack runs out before MAX_REF_DEPTH, the value is refused rather than the caller crashed.
      if (!(err instanceof RangeError)) throw err;
      out.length = Math.min(out.length, MAX_ISSUES - 1);
      report(out, rootPath, '$ref', 'the value is nested too deeply to check against this recursive schema');
    }
    return out;
  };
}

/** A root schema compiled once, from which validators for any of its locations can be taken. */
export interface SchemaDocument {
  /** The validator for the subschema at a local pointer ("#" is the root); throws SchemaCompileError if it names nothing. */
  validator(pointer: string): Validator;
}

/**
 * Compiles a whole root schema — the root and every entry of its `definitions` / `$defs` — and
 * returns a document whose validators share one cache, so asking for many definitions of a large
 * schema (the official MCP schema, say) compiles each location once. Throws SchemaCompileError,
 * naming the schema location, for an unsupported keyword, a malformed keyword value, a remote or
 * dangling `$ref`, or a reference cycle that never moves into the value.
 */
export function compileSchemaDocument(root: JsonSchema): SchemaDocument {
  const compiler = new DocumentCompiler(root);
  compiler.at(root, '#', false);
  const validators = new Map<string, Validator>();
  return {
    validator(pointer) {
      const found = validators.get(pointer);
      if (found !== undefined) return found;
      const made = toValidator(compiler.ref(pointer, '#'));
      validators.set(pointer, made);
      return made;
    },
  };
}

/**
 * Compiles `schema` once and returns a validator for it, or, with `options.pointer`, for the
 * subschema at that pointer (references inside still resolve against `schema`). Throws
 * SchemaCompileError as compileSchemaDocument does.
 */
export function compileSchema(schema: JsonSchema, options: CompileOptions = {}): Validator {
  return compileSchemaDocument(schema).validator(options.pointer ?? '#');
}
