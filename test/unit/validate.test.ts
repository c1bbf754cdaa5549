// Unit tests of the hand-written JSON-Schema validator: each keyword, the path and message formats,
// prototype-named keys, bounds on issues and depth, local $ref, and compile errors. Never touches the corpus.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  compileSchema, compileSchemaDocument, SchemaCompileError, type JsonSchema, type SchemaIssue,
} from '../../src/schema/validate.js';
import { MAX_REF_DEPTH } from '../../src/schema/refs.js';

const messages = (schema: JsonSchema, value: unknown, root = 'arguments'): string[] =>
  compileSchema(schema)(value, root).map((i) => i.message);
const valid = (schema: JsonSchema, value: unknown): boolean => compileSchema(schema)(value).length === 0;

const toolSchema: JsonSchema = {
  type: 'object',
  properties: {
    session_id: { type: 'string', minLength: 1 },
    mode_slug: { type: 'string' },
    status: { enum: ['completed', 'failed', 'cancelled'] },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    custom_roles: { type: 'array', items: { type: 'object', properties: { role_name: { type: 'string' } } } },
  },
  required: ['session_id'],
  additionalProperties: false,
};

test('reports the documented message for each common mistake in a tool argument object', () => {
  const issues = compileSchema(toolSchema)(
    { mode_slug: 7, status: 'done', limit: 0, foo: true, custom_roles: [{}, {}, { role_name: 3 }] }, 'arguments');
  assert.deepEqual(issues, [
    { path: 'arguments.mode_slug', keyword: 'type', message: 'arguments.mode_slug: expected string, got number' },
    { path: 'arguments.status', keyword: 'enum', message: 'arguments.status: expected one of "completed", "failed", "cancelled", got "done"' },
    { path: 'arguments.limit', keyword: 'minimum', message: 'arguments.limit: expected at least 1, got 0' },
    { path: 'arguments.custom_roles[2].role_name', keyword: 'type', message: 'arguments.custom_roles[2].role_name: expected string, got number' },
    { path: 'arguments', keyword: 'required', message: 'arguments: missing required property "session_id"' },
    { path: 'arguments', keyword: 'additionalProperties', message: 'arguments: unexpected property "foo"' },
  ]);
});

test('accepts a valid argument object with no issues', () => {
  assert.deepEqual(compileSchema(toolSchema)({ session_id: 's', limit: 100, custom_roles: [{ role_name: 'x' }] }, 'arguments'), []);
});

test('quotes odd keys in brackets and starts paths bare at an empty root', () => {
  const schema = { properties: { 'weird key': { type: 'string' }, plain: { type: 'string' } } };
  assert.deepEqual(messages(schema, { 'weird key': 1 }), ['arguments["weird key"]: expected string, got number']);
  assert.deepEqual(compileSchema(schema)({ plain: 1, 'weird key': 1 }).map((i) => i.path), ['["weird key"]', 'plain']);
  assert.deepEqual(messages({ required: ['a'] }, {}, ''), ['missing required property "a"']);
  assert.deepEqual(messages({ items: { type: 'null' } }, [null, 0], ''), ['[1]: expected null, got number']);
});

test('checks type names, including integer as a number with no fractional part', () => {
  assert.ok(valid({ type: 'integer' }, 1.0));
  assert.deepEqual(messages({ type: 'integer' }, 1.5), ['arguments: expected integer, got number']);
  assert.deepEqual(messages({ type: ['string', 'null'] }, []), ['arguments: expected string or null, got array']);
  assert.deepEqual(messages({ type: ['string', 'number', 'boolean'] }, {}), ['arguments: expected string, number or boolean, got object']);
  assert.ok(valid({ type: 'object' }, {}) && !valid({ type: 'object' }, []) && !valid({ type: 'array' }, {}));
  assert.ok(valid({ type: 'null' }, null) && !valid({ type: 'object' }, null));
});

test('a wrong type suppresses the other keywords of the same schema', () => {
  assert.deepEqual(messages({ type: 'string', enum: ['a'] }, 5), ['arguments: expected string, got number']);
});

test('additionalProperties as a schema validates the extra values at their own path', () => {
  const schema = { properties: { a: {} }, additionalProperties: { type: 'number' } };
  assert.deepEqual(messages(schema, { a: 'x', b: 1, 'c d': 'no' }), ['arguments["c d"]: expected number, got string']);
});

test('enum and const compare structurally, objects ignoring key order and 1 equal to 1.0', () => {
  assert.ok(valid({ const: { a: [1, { b: 2 }], c: null } }, JSON.parse('{"c":null,"a":[1.0,{"b":2}]}')));
  assert.ok(!valid({ const: [1, 2] }, [2, 1]));
  assert.ok(!valid({ const: { a: 1 } }, { a: 1, b: 2 }));
  assert.ok(valid({ enum: [1, { x: [true] }] }, { x: [true] }) && valid({ enum: [1] }, 1.0));
  assert.ok(!valid({ enum: [false, 0] }, null) && !valid({ enum: [0] }, false));
  assert.deepEqual(messages({ const: 'x' }, { y: 1 }), ['arguments: expected "x", got an object']);
  assert.deepEqual(messages({ enum: ['only'] }, 'other'), ['arguments: expected "only", got "other"']);
  assert.deepEqual(messages({ enum: [] }, null), ['arguments: expected no value at all (the enum is empty), got null']);
});

test('items applies after prefixItems, and items false caps the length', () => {
  const schema = { prefixItems: [{ type: 'string' }, { type: 'number' }], items: { type: 'boolean' } };
  assert.ok(valid(schema, ['a', 1, true, false]) && valid(schema, ['a']));
  assert.deepEqual(messages(schema, ['a', 'b', true, 3]), [
    'arguments[1]: expected number, got string', 'arguments[3]: expected boolean, got number']);
  assert.deepEqual(messages({ prefixItems: [{}], items: false }, [1, 2, 3]), ['arguments: expected at most 1 item, got 3']);
});

test('counts array items, object properties and string code points', () => {
  assert.deepEqual(messages({ minItems: 2 }, [1]), ['arguments: expected at least 2 items, got 1']);
  assert.deepEqual(messages({ maxItems: 1 }, [1, 2]), ['arguments: expected at most 1 item, got 2']);
  assert.deepEqual(messages({ minProperties: 1 }, {}), ['arguments: expected at least 1 property, got 0']);
  assert.deepEqual(messages({ maxProperties: 1 }, { a: 1, b: 2 }), ['arguments: expected at most 1 property, got 2']);
  // Two emoji are four UTF-16 units but two code points.
  assert.ok(valid({ maxLength: 2 }, '💩💩') && !valid({ minLength: 3 }, '💩💩'));
  assert.deepEqual(messages({ minLength: 3 }, '💩💩'), ['arguments: expected at least 3 characters, got 2']);
  assert.deepEqual(messages({ maxLength: 1 }, 'ab'), ['arguments: expected at most 1 character, got 2']);
});

test('checks numeric bounds, inclusive and exclusive', () => {
  assert.deepEqual(messages({ maximum: 10 }, 11), ['arguments: expected at most 10, got 11']);
  assert.deepEqual(messages({ exclusiveMinimum: 0 }, 0), ['arguments: expected more than 0, got 0']);
  assert.deepEqual(messages({ exclusiveMaximum: 1.5 }, 1.5), ['arguments: expected less than 1.5, got 1.5']);
  assert.ok(valid({ minimum: 1, maximum: 1 }, 1) && valid({ minimum: 5 }, 'not a number'));
});

test('uniqueItems finds equal items regardless of key order and says where they are', () => {
  assert.deepEqual(messages({ uniqueItems: true }, [{ a: 1, b: 2 }, 3, { b: 2, a: 1.0 }]),
    ['arguments: expected unique items, got equal items at [0] and [2]']);
  assert.ok(valid({ uniqueItems: true }, [1, true, '1', [1], { 1: 1 }, null, 0, false]));
});

test('pattern is unanchored and compiled in unicode mode', () => {
  assert.ok(valid({ pattern: 'b+' }, 'abbc'));
  assert.ok(valid({ pattern: '^\\p{L}+$' }, 'héllo') && !valid({ pattern: '^\\p{L}+$' }, 'h3llo'));
  assert.ok(valid({ pattern: '^.$' }, '💩'));
  assert.deepEqual(messages({ pattern: '^[a-z]+$' }, 'Bad'), ['arguments: expected a string matching the pattern "^[a-z]+$", got "Bad"']);
});

test('anyOf that fails only on type lists the acceptable types', () => {
  assert.deepEqual(compileSchema({ anyOf: [{ type: 'string' }, { type: 'array' }] })(3, 'arguments'),
    [{ path: 'arguments', keyword: 'type', message: 'arguments: expected string or array, got number' }]);
});

test('anyOf with one branch of the right type reports that branch\'s own issues', () => {
  const schema = { anyOf: [{ type: 'string' }, { type: 'object', required: ['slug'] }] };
  assert.deepEqual(messages(schema, {}), ['arguments: missing required property "slug"']);
});

test('anyOf with several plausible branches quotes the closest one in a single issue', () => {
  const schema = { anyOf: [{ type: 'object', required: ['a', 'b'] }, { type: 'object', required: ['c'] }] };
  assert.deepEqual(messages(schema, {}), [
    'arguments: matches none of the 2 alternatives in anyOf; the closest (#2) fails with: arguments: missing required property "c"']);
});

test('oneOf rejects a value matching two alternatives and summarises a value matching none', () => {
  const schema = { oneOf: [{ type: 'integer' }, { minimum: 2 }] };
  assert.ok(valid(schema, 1) && valid(schema, 2.5));
  assert.deepEqual(messages(schema, 3), ['arguments: expected exactly one alternative in oneOf to match, but #1 and #2 both do']);
  assert.deepEqual(messages({ oneOf: [{ type: 'string' }, { type: 'null' }] }, 1), ['arguments: expected string or null, got number']);
});

test('allOf applies every subschema and not inverts one', () => {
  assert.deepEqual(messages({ allOf: [{ minimum: 2 }, { maximum: 1 }] }, 3), ['arguments: expected at most 1, got 3']);
  assert.deepEqual(messages({ not: { type: 'string' } }, 'x'), ['arguments: expected a value that does not match the schema under "not", got "x"']);
  assert.ok(valid({ not: { type: 'string' } }, 1) && valid({ not: false }, 1) && !valid({ not: true }, 1));
});

test('boolean schemas accept or reject everything', () => {
  assert.ok(valid(true, { anything: [1] }));
  assert.deepEqual(messages(false, 1), ['arguments: no value is allowed here']);
  assert.deepEqual(messages({ properties: { gone: false } }, { gone: 1 }), ['arguments.gone: no value is allowed here']);
});

test('accepts and ignores annotation keywords, including format', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'x', title: 't', description: 'd', default: 3,
    examples: [1], $comment: 'c', deprecated: true, readOnly: true, writeOnly: false, format: 'email',
  };
  assert.ok(valid(schema, 'not an email'));
});

test('treats __proto__, constructor and hasOwnProperty as plain data keys', () => {
  // Parsed, not written as a literal: in a literal `__proto__:` would set the prototype.
  const check = compileSchema(JSON.parse(`{
    "properties": { "__proto__": { "type": "number" }, "constructor": { "type": "number" } },
    "required": ["toString", "hasOwnProperty"] }`) as JsonSchema);
  assert.deepEqual(check({}).map((i) => i.message),
    ['missing required property "toString"', 'missing required property "hasOwnProperty"']);
  const hostile = JSON.parse('{"__proto__": "x", "constructor": 1, "toString": 1, "hasOwnProperty": 1}') as unknown;
  assert.deepEqual(check(hostile).map((i) => i.message), ['__proto__: expected number, got string']);
  assert.deepEqual(compileSchema({ additionalProperties: false })(JSON.parse('{"__proto__": {}}')).map((i) => i.message),
    ['unexpected property "__proto__"']);
  assert.ok(!valid({ const: {} }, JSON.parse('{"__proto__": null}')));
  assert.ok(valid({ uniqueItems: true }, JSON.parse('[{"__proto__": 1}, {"constructor": 1}]')));
});

test('never mutates the value it checks', () => {
  const value = { session_id: 'abc', custom_roles: [{ role_name: 1 }], extra: { deep: [1, 2] } };
  const before = JSON.stringify(value);
  const freeze = (o: unknown): void => { if (typeof o === 'object' && o !== null) { Object.freeze(o); Object.values(o).forEach(freeze); } };
  freeze(value);
  compileSchema(toolSchema)(value, 'arguments');
  compileSchema({ uniqueItems: true, const: [], anyOf: [{ type: 'string' }, { type: 'object' }] })(value);
  assert.equal(JSON.stringify(value), before);
});

test('does not recurse into deeply nested values beyond what the schema describes', () => {
  const depth = 200_000;
  const deep = JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown;
  const deepToo = JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown;
  assert.deepEqual(messages({ items: { type: 'array' } }, [deep]), []);
  assert.deepEqual(messages({ uniqueItems: true }, [deep, deepToo]), ['arguments: expected unique items, got equal items at [0] and [1]']);
  assert.ok(!valid({ const: [[]] }, deep) && !valid({ enum: [[[1]]] }, deep));
});

test('stops collecting after 20 issues', () => {
  const required = Array.from({ length: 100 }, (_, i) => `p${i}`);
  assert.equal(compileSchema({ required })({}).length, 20);
  assert.equal(compileSchema({ items: { type: 'string' } })(Array.from({ length: 1000 }, () => 0)).length, 20);
  const wide = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i]));
  assert.equal(compileSchema({ additionalProperties: false })(wide).length, 20);
});

test('refuses unsupported keywords at compile time, naming their schema path', () => {
  const cases: [JsonSchema, string][] = [
    [{ $dynamicRef: '#node' }, '#/$dynamicRef'],
    [{ $defs: { a: { $anchor: 'x' } } }, '#/$defs/a/$anchor'],
    [{ properties: { a: { items: { patternProperties: {} } } } }, '#/properties/a/items/patternProperties'],
    [{ anyOf: [{}, { if: {} }] }, '#/anyOf/1/if'],
    [{ properties: { 'a/b': { dependentRequired: {} } } }, '#/properties/a~1b/dependentRequired'],
    [{ unevaluatedProperties: false }, '#/unevaluatedProperties'],
  ];
  for (const [schema, where] of cases) {
    assert.throws(() => compileSchema(schema), (err: unknown) =>
      err instanceof SchemaCompileError && err.message.includes(where) && err.message.includes('unsupported keyword'));
  }
});

test('refuses malformed keyword values at compile time', () => {
  const bad: JsonSchema[] = [
    { type: 'float' }, { type: [] }, { minLength: -1 }, { maxItems: 1.5 }, { minimum: '3' }, { pattern: '(' },
    { pattern: '\\p{Nope}' }, { required: 'a' }, { anyOf: [] }, { oneOf: {} }, { properties: [] },
    { enum: 'a' }, { uniqueItems: 'yes' }, { items: 3 }, { not: null },
  ];
  for (const schema of bad) assert.throws(() => compileSchema(schema), SchemaCompileError, JSON.stringify(schema));
  assert.throws(() => compileSchema(null as unknown as JsonSchema), SchemaCompileError);
});

test('a compiled validator can be reused for many values and root paths', () => {
  const check = compileSchema(toolSchema);
  const issues: SchemaIssue[] = check({ session_id: 1 }, 'params.arguments');
  assert.deepEqual(issues.map((i) => i.path), ['params.arguments.session_id']);
  assert.deepEqual(check({ session_id: 'ok' }), []);
});

// ---- local references

test('$ref resolves definitions, $defs, the root and a path into properties and items', () => {
  const schema: JsonSchema = {
    definitions: { slug: { type: 'string', pattern: '^[a-z-]+$' } },
    $defs: { count: { type: 'integer', minimum: 0 } },
    properties: {
      mode: { $ref: '#/definitions/slug' },
      n: { $ref: '#/$defs/count' },
      list: { type: 'array', items: { type: 'boolean' } },
      again: { $ref: '#/properties/list/items' },
      self: { $ref: '#' },
    },
  };
  assert.ok(valid(schema, { mode: 'code', n: 3, list: [true], again: false, self: { mode: 'ask' } }));
  assert.deepEqual(messages(schema, { mode: 'Code', n: -1, again: 'x', self: { n: 1.5 } }), [
    'arguments.mode: expected a string matching the pattern "^[a-z-]+$", got "Code"',
    'arguments.n: expected at least 0, got -1',
    'arguments.again: expected boolean, got string',
    'arguments.self.n: expected integer, got number',
  ]);
});

test('$ref decodes ~0, ~1 and percent escapes and indexes arrays', () => {
  const schema = JSON.parse(`{
    "$defs": { "tilde~name": { "type": "integer" }, "slash/name": { "type": "string" },
               "per%cent": { "type": "null" }, "two words": { "type": "boolean" } },
    "anyOf": [ { "type": "object" } ],
    "properties": {
      "t": { "$ref": "#/$defs/tilde~0name" }, "s": { "$ref": "#/$defs/slash~1name" },
      "p": { "$ref": "#/$defs/per%25cent" }, "w": { "$ref": "#/$defs/two%20words" },
      "i": { "$ref": "#/anyOf/0" }
    } }`) as JsonSchema;
  assert.ok(valid(schema, { t: 1, s: 'x', p: null, w: true, i: {} }));
  assert.deepEqual(compileSchema(schema)({ t: 'x', s: 1, p: 0, w: 0, i: [] }).map((i) => i.message), [
    't: expected integer, got string', 's: expected string, got number', 'p: expected null, got number',
    'w: expected boolean, got number', 'i: expected object, got array']);
});

test('$ref applies together with its sibling keywords', () => {
  const schema = { $defs: { short: { maxLength: 3 } }, $ref: '#/$defs/short', type: 'string', minLength: 2 };
  assert.ok(valid(schema, 'abc'));
  assert.deepEqual(messages(schema, 'abcd'), ['arguments: expected at most 3 characters, got 4']);
  assert.deepEqual(messages(schema, 'a'), ['arguments: expected at least 2 characters, got 1']);
  assert.deepEqual(messages(schema, 7), ['arguments: expected string, got number']);
});

test('a recursive schema validates nested values at every depth and names the deep path', () => {
  const tree: JsonSchema = {
    $defs: {
      node: {
        type: 'object',
        properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
        required: ['name'],
        additionalProperties: false,
      },
    },
    $ref: '#/$defs/node',
  };
  const check = compileSchema(tree);
  assert.deepEqual(check({ name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }, { name: 'd', children: [] }] }), []);
  assert.deepEqual(check({ name: 'a', children: [{ name: 'b', children: [{ name: 'c', children: [{ extra: 1 }] }] }] }).map((i) => i.message), [
    'children[0].children[0].children[0]: missing required property "name"',
    'children[0].children[0].children[0]: unexpected property "extra"',
  ]);
  const list = { type: ['object', 'null'], properties: { next: { $ref: '#' }, v: { type: 'number' } } };
  assert.deepEqual(messages(list, { v: 1, next: { v: 2, next: { v: 'three', next: null } } }), ['arguments.next.next.v: expected number, got string']);
});

test('compiles each referenced location once, however often it is referenced', () => {
  // Level i references level i+1 twice: compiling per reference would take 2^40 steps.
  const $defs: Record<string, JsonSchema> = { d40: { type: 'string' } };
  for (let i = 0; i < 40; i++) $defs[`d${i}`] = { properties: { a: { $ref: `#/$defs/d${i + 1}` }, b: { $ref: `#/$defs/d${i + 1}` } } };
  const check = compileSchema({ $defs, $ref: '#/$defs/d0' });
  let deep: unknown = 5;
  for (let i = 0; i < 40; i++) deep = { b: deep };
  assert.deepEqual(check(deep).map((i) => i.path), [`${'b.'.repeat(39)}b`]);
});

test('a value nested deeper than the recursion bound is reported, not a stack overflow', () => {
  const list = { type: 'object', properties: { next: { $ref: '#' } } };
  let value: unknown = {};
  for (let i = 0; i < 100_000; i++) value = { next: value };
  const issues = compileSchema(list)(value);
  assert.equal(issues.length, 1);
  assert.equal(issues[0]!.keyword, '$ref');
  assert.match(issues[0]!.message, new RegExp(`nested more than ${MAX_REF_DEPTH} levels`));
  let fine: unknown = {};
  for (let i = 0; i < MAX_REF_DEPTH - 1; i++) fine = { next: fine };
  assert.deepEqual(compileSchema(list)(fine), []);
  // The bound is per call: a failed deep call leaves the validator usable.
  const check = compileSchema(list);
  check(value);
  assert.deepEqual(check({ next: { next: 3 } }).map((i) => i.message), ['next.next: expected object, got number']);
});

test('a recursive schema whose levels exhaust the stack before the bound still reports instead of throwing', () => {
  const link = { type: 'object', properties: { next: { not: { not: { $ref: '#/$defs/n' } } } } };
  const schema = { $defs: { n: { oneOf: [{ type: 'null' }, { allOf: [{ anyOf: [{ allOf: [{ allOf: [link] }] }] }] }] } }, $ref: '#/$defs/n' };
  let value: unknown = null;
  for (let i = 0; i < 100_000; i++) value = { next: value };
  const check = compileSchema(schema);
  const issues = check(value);
  assert.ok(issues.length >= 1 && issues.some((i) => i.keyword === '$ref'), JSON.stringify(issues));
  assert.deepEqual(check({ next: { next: null } }), []);
});

test('compileSchema with a pointer validates against that definition, resolving refs in the root', () => {
  const root: JsonSchema = {
    definitions: {
      Id: { type: ['string', 'integer'] },
      Request: { type: 'object', properties: { id: { $ref: '#/definitions/Id' } }, required: ['id'] },
    },
  };
  const check = compileSchema(root, { pointer: '#/definitions/Request' });
  assert.deepEqual(check({ id: 'x' }), []);
  assert.deepEqual(check({ id: null }).map((i) => i.message), ['id: expected string or integer, got null']);
  assert.ok(compileSchema(root)({ id: null }).length === 0, 'the root alone only holds definitions');
  const doc = compileSchemaDocument(root);
  assert.equal(doc.validator('#/definitions/Id'), doc.validator('#/definitions/Id'));
  assert.deepEqual(doc.validator('#/definitions/Id')(1.5).map((i) => i.message), ['expected string or integer, got number']);
  assert.throws(() => doc.validator('#/definitions/Nope'), SchemaCompileError);
});

test('anyOf over references lists the referenced types when only the type is wrong', () => {
  const schema = { $defs: { s: { type: 'string' }, a: { type: 'array' } }, anyOf: [{ $ref: '#/$defs/s' }, { $ref: '#/$defs/a' }] };
  assert.deepEqual(messages(schema, 3), ['arguments: expected string or array, got number']);
});

test('refuses a reference that points at nothing, naming the $ref location', () => {
  const cases: [JsonSchema, string][] = [
    [{ properties: { a: { $ref: '#/$defs/missing' } } }, '#/properties/a/$ref'],
    [{ $defs: { x: {} }, $ref: '#/$defs/x/properties' }, '#/$ref'],
    [{ anyOf: [{}], $ref: '#/anyOf/1' }, '#/$ref'],
    [{ anyOf: [{}], $ref: '#/anyOf/01' }, '#/$ref'],
    [{ $defs: { 'a/b': {} }, $ref: '#/$defs/a/b' }, '#/$ref'],
    [{ $ref: '#/$defs/%E0%A4%A' }, '#/$ref'],
    [{ $ref: '#/$defs/a~2' }, '#/$ref'],
    [{ $ref: '#anchor' }, '#/$ref'],
  ];
  for (const [schema, where] of cases) {
    assert.throws(() => compileSchema(schema), (err: unknown) =>
      err instanceof SchemaCompileError && err.schemaPath === where, JSON.stringify(schema));
  }
});

test('refuses remote references', () => {
  for (const ref of ['other.json', 'https://example.com/schema.json#/$defs/x', 'urn:x', '/abs#/a', '']) {
    assert.throws(() => compileSchema({ properties: { a: { $ref: ref } } }), (err: unknown) =>
      err instanceof SchemaCompileError && err.schemaPath === '#/properties/a/$ref' && /remote reference/.test(err.message), ref);
  }
  assert.throws(() => compileSchema({ $ref: 5 } as JsonSchema), SchemaCompileError);
});

test('refuses a reference to something that is not a schema, and a bad definition even if unused', () => {
  assert.throws(() => compileSchema({ enum: [1], $ref: '#/enum' }), SchemaCompileError);
  assert.throws(() => compileSchema({ $defs: { unused: { type: 'float' } } }), (err: unknown) =>
    err instanceof SchemaCompileError && err.schemaPath === '#/$defs/unused/type');
  assert.throws(() => compileSchema({ definitions: [] } as JsonSchema), SchemaCompileError);
});

test('refuses a reference cycle that never moves into the value', () => {
  const loops: JsonSchema[] = [
    { $ref: '#' },
    { $defs: { a: { $ref: '#/$defs/b' }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' },
    { $defs: { a: { not: { $ref: '#' } } }, anyOf: [{ type: 'string' }, { $ref: '#/$defs/a' }] },
    { anyOf: [{ type: 'string' }, { $ref: '#/$defs/a' }], $defs: { a: { not: { $ref: '#' } } } },
  ];
  for (const schema of loops) {
    assert.throws(() => compileSchema(schema), (err: unknown) =>
      err instanceof SchemaCompileError && /reference cycle/.test(err.message), JSON.stringify(schema));
  }
  // The same shapes are fine once the cycle passes through a property or an item.
  assert.ok(valid({ $defs: { a: { items: { $ref: '#' } } }, anyOf: [{ type: 'string' }, { $ref: '#/$defs/a' }] }, [['x'], 'y']));
  // A definition that only refers to itself is refused even when unused: applying it could never end.
  assert.throws(() => compileSchema({ $defs: { a: { $ref: '#/$defs/a' } } }), SchemaCompileError);
});
