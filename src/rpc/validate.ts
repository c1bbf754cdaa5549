// The JSON-Schema (2020-12 subset) validator for tool arguments and the config file: compiles a
// schema once into closures. Never silently ignores a keyword it does not know, never mutates input.
//
// How it works: compileNode walks the schema once. Each keyword in KEYWORDS has a compiler that
// returns a Check closure (or null when it can never fail); the node sorts them by the kind of
// value they constrain, so a call runs only the checks relevant to the value's type. Recursion
// follows the schema, never the value, so a deeply nested value cannot exhaust the stack.
import {
  type Check, type KeywordCompiler, type KeywordContext, type SchemaIssue, SchemaCompileError, escapePointer, report,
} from './validate-context.js';
import {
  compileAdditionalProperties, compileConst, compileEnum, compileExclusiveMaximum, compileExclusiveMinimum,
  compileItems, compileMaxItems, compileMaxLength, compileMaxProperties, compileMaximum, compileMinItems,
  compileMinLength, compileMinProperties, compileMinimum, compilePattern, compilePrefixItems, compileProperties,
  compileRequired, compileType, compileUniqueItems,
} from './validate-keywords.js';
import { compileAllOf, compileAnyOf, compileNot, compileOneOf } from './validate-combinators.js';
import { hasOwn } from './validate-values.js';

export { SchemaCompileError, type SchemaIssue } from './validate-context.js';

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
};

const rejectAll: Check = (_v, p, out) => report(out, p, 'false', 'no value is allowed here');

/** Runs a list of checks; a single check is returned as is to save a loop on the hot path. */
function sequence(checks: Check[]): Check | null {
  if (checks.length === 0) return null;
  if (checks.length === 1) return checks[0]!;
  return (v, p, out) => { for (const c of checks) c(v, p, out); };
}

function compileNode(schema: unknown, pointer: string): Check | null {
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
    const ctx: KeywordContext = { schema: s, pointer: at, sub: (value, suffix) => compileNode(value, at + suffix) };
    const check = compile(s[key], ctx);
    if (check !== null) groups[applies].push(check);
  }
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
 * Compiles `schema` once and returns a validator. The validator lists at most 20 issues, each with
 * a path rooted at `rootPath` (default "") and a message that names what was expected and what came;
 * an empty list means the value is valid. Throws SchemaCompileError for an unsupported keyword or a
 * malformed keyword value, naming the schema location as a JSON pointer.
 */
export function compileSchema(schema: JsonSchema): (value: unknown, rootPath?: string) => SchemaIssue[] {
  const check = compileNode(schema, '#');
  return (value, rootPath = '') => {
    const out: SchemaIssue[] = [];
    if (check !== null) check(value, rootPath, out);
    return out;
  };
}
