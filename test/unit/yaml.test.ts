// Unit tests for the hand-written YAML 1.2 reader (src/yaml/*.ts) and the mode-file text reader.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { YamlError, parseYaml } from '../../src/yaml/read.js';
import { cleanRooText, readModeFileText } from '../../src/modes/mode-file.js';

const read = (text: string): unknown => parseYaml(text).value;

/** Asserts that parsing fails with a YamlError at the given 1-based line/column. */
function assertYamlError(text: string, line: number, column: number, pattern?: RegExp): YamlError {
  let caught: unknown;
  try {
    parseYaml(text);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof YamlError, `expected a YamlError for ${JSON.stringify(text)}, got ${String(caught)}`);
  assert.equal(caught.line, line, caught.message);
  assert.equal(caught.column, column, caught.message);
  assert.match(caught.message, new RegExp(`at line ${line}, column ${column}$`));
  if (pattern !== undefined) assert.match(caught.message, pattern);
  return caught;
}

describe('block collections', () => {
  it('reads nested block mappings and sequences', () => {
    const text = 'customModes:\n  - slug: docs\n    name: Docs\n    groups:\n      - read\n      - edit\n';
    assert.deepEqual(read(text), { customModes: [{ slug: 'docs', name: 'Docs', groups: ['read', 'edit'] }] });
  });

  it('reads an indentless sequence under a key and continues the mapping after it', () => {
    assert.deepEqual(read('groups:\n- read\n- edit\nsource: project\n'), { groups: ['read', 'edit'], source: 'project' });
  });

  it('reads "- - edit" nested sequences and compact "- key: v" mappings', () => {
    const text = 'groups:\n  - read\n  - - edit\n    - fileRegex: \\.md$\n      description: Markdown\n';
    assert.deepEqual(read(text), { groups: ['read', ['edit', { fileRegex: '\\.md$', description: 'Markdown' }]] });
  });

  it('reads an empty value as null and a value on the next, deeper line', () => {
    assert.deepEqual(read('a:\nb:\n  c: 1\n'), { a: null, b: { c: 1 } });
    assert.deepEqual(read('-\n- x\n'), [null, 'x']);
  });

  it('reads explicit "?" keys', () => {
    assert.deepEqual(read('? key\n: value\n? bare\n'), { key: 'value', bare: null });
  });

  it('ignores comments, blank lines and trailing white space', () => {
    assert.deepEqual(read('# head\n\na: 1   # one\n  # inner\n\nb: x#not-a-comment  \n'), { a: 1, b: 'x#not-a-comment' });
  });
});

describe('flow collections', () => {
  it('reads flow sequences with nested flow mappings', () => {
    assert.deepEqual(read('groups: [read, [edit, {fileRegex: "\\\\.md$", description: Docs}]]'), {
      groups: ['read', ['edit', { fileRegex: '\\.md$', description: 'Docs' }]],
    });
  });

  it('reads multi-line flow collections, closing bracket at the key indentation allowed', () => {
    assert.deepEqual(read('a:\n  groups: [\n    read,\n    edit\n  ]\n  b: {x: 1,\n    y: 2}\n'), {
      a: { groups: ['read', 'edit'], b: { x: 1, y: 2 } },
    });
  });

  it('reads JSON-style documents, accepting trailing commas as YAML does', () => {
    const text = '{\n  "customModes": [\n    {"slug": "a", "groups": ["read",],},\n  ],\n}\n';
    assert.deepEqual(read(text), { customModes: [{ slug: 'a', groups: ['read'] }] });
  });

  it('reads adjacent ":" after a quoted key, single pairs in sequences and keys without values', () => {
    assert.deepEqual(read('{"a":1, b, c: }'), { a: 1, b: null, c: null });
    assert.deepEqual(read('[a: 1, "b":2]'), [{ a: 1 }, { b: 2 }]);
  });

  it('refuses a leading comma and a missing comma', () => {
    assertYamlError('[, a]', 1, 2, /unexpected ","/);
    assertYamlError('{a: 1 b: 2}', 1, 8, /missing ","/);
  });

  it('reports two multi-line flow nodes without a comma at the first one, as the reference library does', () => {
    assertYamlError('[\n  {\n    "a": 1\n  }\n  {"b": 2}\n]', 2, 3, /single line/);
  });
});

describe('scalars', () => {
  it('decodes every double-quoted escape', () => {
    const value = read(String.raw`"\n\t\\\"\/\0\a\b\e\f\r\v\N\_\L\P\x41\u00e9\U0001F600\ \	"`);
    assert.equal(value, '\n\t\\"/\0\x07\b\x1b\f\r\v\u0085\u00a0\u2028\u2029A\u00e9\u{1F600} \t');
  });

  it('joins surrogate pairs written as two \\u escapes', () => {
    assert.equal(read(String.raw`"\uD83D\uDE00"`), '\u{1F600}');
  });

  it('refuses an unknown escape, pointing at the backslash', () => {
    assertYamlError('a: "ok \\q"\n', 1, 8, /invalid escape/);
  });

  it('reads single-quoted scalars with doubled quotes', () => {
    assert.equal(read("'it''s'"), "it's");
  });

  it('folds multi-line plain, single- and double-quoted scalars', () => {
    assert.deepEqual(read('a: one\n  two\n\n  three\nb: next\n'), { a: 'one two\nthree', b: 'next' });
    assert.equal(read("'one  \n   two\n\n\n  three'"), 'one two\n\nthree');
    assert.equal(read('"one \\\n   two\n  three"'), 'one two three');
  });

  it('resolves plain scalars with the YAML 1.2 core schema', () => {
    const text = '[true, True, TRUE, false, FALSE, null, Null, NULL, ~, 42, -7, +3, 0o17, 0x1F, 1.5, .5, 1e3, -.inf, .Inf, yes, no, on, off, 0o9, 1_000, "1"]';
    assert.deepEqual(read(text), [
      true, true, true, false, false, null, null, null, null, 42, -7, 3, 15, 31, 1.5, 0.5, 1000, -Infinity, Infinity,
      'yes', 'no', 'on', 'off', '0o9', '1_000', '1',
    ]);
    assert.ok(Number.isNaN(read('.nan')));
  });

  it('honours core tags and the non-specific "!" tag', () => {
    assert.deepEqual(read('a: !!str 123\nb: ! true\nc: !!int "7"\nd: !custom text\n'), { a: '123', b: 'true', c: 7, d: 'text' });
  });
});

describe('block scalars', () => {
  it('applies clip, strip and keep chomping to literal scalars', () => {
    assert.deepEqual(read('a: |\n  x\n  y\n\n\nb: |-\n  x\n\nc: |+\n  x\n\n\nd: end\n'), {
      a: 'x\ny\n', b: 'x', c: 'x\n\n\n', d: 'end',
    });
  });

  it('folds ">" scalars, keeping breaks around more-indented lines', () => {
    assert.equal(read('>\n  one\n  two\n\n  three\n    indented\n  back\n'), 'one two\nthree\n  indented\nback\n');
    assert.deepEqual(read('a: >-\n  one\n  two\n'), { a: 'one two' });
  });

  it('uses an indentation indicator and keeps leading spaces beyond it', () => {
    assert.deepEqual(read('a: |2\n    code\n  text\nb: >1-\n  spaced\n'), { a: '  code\ntext\n', b: ' spaced' });
  });

  it('ends a block scalar at a less-indented line and keeps "#" lines inside it', () => {
    assert.deepEqual(read('a: |\n  # kept\n  text\n# comment\nb: 1\n'), { a: '# kept\ntext\n', b: 1 });
  });

  it('gives a final newline to a clipped scalar even at the end of a file without one', () => {
    assert.deepEqual(read('a: |\n  last'), { a: 'last\n' });
  });

  it('refuses more-indented leading empty lines without an indicator', () => {
    assertYamlError('a: |\n     \n  x\n', 3, 1, /indentation indicator/);
  });
});

describe('documents', () => {
  it('accepts "---" and "..." around one document and gives null for an empty one', () => {
    assert.deepEqual(read('%YAML 1.2\n--- # start\na: 1\n...\n# after\n'), { a: 1 });
    assert.equal(read(''), null);
    assert.equal(read('# only a comment\n'), null);
    assert.equal(read('--- |\n  text\n'), 'text\n');
  });

  it('refuses a second document where its "---" starts', () => {
    assertYamlError('a: 1\n---\nb: 2\n', 2, 1, /more than one YAML document/);
    assertYamlError('---\na: 1\n---\n', 3, 1, /more than one YAML document/);
  });

  it('reads CRLF line endings and drops a leading BOM', () => {
    assert.deepEqual(read('\ufeffa: |\r\n  x\r\n  y\r\nb: "p\r\n  q"\r\n'), { a: 'x\ny\n', b: 'p q' });
  });
});

describe('anchors and aliases', () => {
  it('gives an alias the very object its anchor names', () => {
    const value = read('base: &b {groups: [read]}\nother: *b\nlist: [*b, *b]\n') as Record<string, unknown>;
    assert.equal(value.other, value.base);
    assert.equal((value.list as unknown[])[1], value.base);
  });

  it('keeps "<<" as an ordinary key (YAML 1.2 has no merge keys by default)', () => {
    const value = read('base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n') as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(value.derived ?? {}), ['<<', 'y']);
    assert.equal(value.derived?.['<<'], value.base);
  });

  it('refuses an alias to an unknown anchor', () => {
    assertYamlError('a: *missing\n', 1, 4, /no anchor/);
  });

  it('stops an alias bomb with a YamlError', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i += 1) {
      const prev = String.fromCharCode(96 + i);
      levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    assert.throws(() => parseYaml(levels.join('\n')), (err) => err instanceof YamlError && /aliases expand/.test(err.message));
    assert.throws(() => parseYaml('a: &a [1, 2]\nb: [*a, *a, *a]\n', { maxAliasExpansion: 5 }), YamlError);
    assert.doesNotThrow(() => parseYaml('a: &a [1, 2]\nb: [*a, *a, *a]\n', { maxAliasExpansion: 9 }));
  });

  it('stops aliases that repeat a long text too often, though they name few nodes, at the alias that passes the bound', () => {
    const long = 'x'.repeat(500_000);
    const uses = Array.from({ length: 20 }, (_, i) => `k${i}: *s`).join('\n');
    assertYamlError(`s: &s "${long}"\n${uses}\n`, 10, 5, /aliases expand to more than 4000000 characters of text/);
    // Text in collections counts too, and so do block scalars; within the bound all is read.
    assert.throws(() => parseYaml('a: &a\n  - abc\n  - |\n    defg\nb: [*a, *a]\n', { maxAliasText: 15 }), /more than 15 characters/);
    assert.deepEqual(read('a: &a [abc, de]\nb: [*a, *a, *a]\n'), { a: ['abc', 'de'], b: [['abc', 'de'], ['abc', 'de'], ['abc', 'de']] });
    assert.doesNotThrow(() => parseYaml('a: &a [abc, de]\nb: [*a, *a, *a]\n', { maxAliasText: 15 }));
  });
});

describe('safety limits', () => {
  it('stores "__proto__" and "constructor" as own data properties without touching prototypes', () => {
    const value = read('__proto__: {polluted: true}\nconstructor: 1\nflow: {__proto__: 2}\n') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.equal(JSON.stringify(value), '{"__proto__":{"polluted":true},"constructor":1,"flow":{"__proto__":2}}');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.ok(Object.hasOwn(value, '__proto__'));
  });

  it('refuses 10,000 nested flow sequences with a YamlError instead of overflowing the stack', () => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    assert.throws(() => parseYaml(deep), (err) => err instanceof YamlError && err.column === 1001);
    assert.throws(() => parseYaml(deep, { maxDepth: 1_000_000 }), YamlError);
  });

  it('honours a smaller maxDepth for block nesting too', () => {
    assert.throws(() => parseYaml('a:\n  b:\n    c: 1\n', { maxDepth: 2 }), /nested deeper than 2/);
    assert.deepEqual(parseYaml('a:\n  b: 1\n', { maxDepth: 2 }).value, { a: { b: 1 } });
  });

  it('refuses duplicate keys at the second occurrence', () => {
    assertYamlError('a: 1\nb: 2\na: 3\n', 3, 1, /duplicate mapping key "a"/);
    assertYamlError('{x: 1, x: 2}', 1, 8, /duplicate/);
  });
});

describe('error positions', () => {
  it('points at a "-" that follows a finished root scalar', () => {
    const error = assertYamlError('# title\n\nSome prose here.\n\n## Heading\n- item\n', 6, 1);
    assert.equal(error.message, 'unexpected "-" at line 6, column 1');
  });

  it('points at a value that would start a nested mapping on its key line', () => {
    assertYamlError('a:\n  whenToUse: Use it for: testing\n', 2, 14, /nested mappings/);
  });

  it('points at text glued after a closing quote', () => {
    assertYamlError('a:\n  source: "project"tail text\n', 2, 20, /unexpected/);
  });

  it('points at a wrongly indented entry', () => {
    assertYamlError('a:\n  - x\n - y\n', 3, 2, /indentation/);
    // "1 b" continues the plain value onto the next line, then ": " makes it a key on the "a:" line.
    assertYamlError('a: 1\n b: 2\n', 1, 4, /nested mappings/);
  });

  it('points at an unterminated quote and flow collection', () => {
    assertYamlError('a: "open\nb: 1\n', 1, 9, /missing closing double quote/);
    assertYamlError('a: [1, 2\n', 1, 4, /never closed/);
  });

  it('refuses a tab used as indentation', () => {
    assertYamlError('a:\n\tb: 1\n', 2, 1, /tab/);
  });
});

describe('source positions', () => {
  it('records the 1-based start of every mapping and sequence', () => {
    const doc = parseYaml('customModes:\n  - slug: a\n    groups: [read]\n  - slug: b\n');
    const value = doc.value as { customModes: Array<{ groups?: unknown[] }> };
    assert.deepEqual(doc.positions.get(value), { line: 1, column: 1 });
    assert.deepEqual(doc.positions.get(value.customModes), { line: 2, column: 3 });
    assert.deepEqual(doc.positions.get(value.customModes[0] as object), { line: 2, column: 5 });
    assert.deepEqual(doc.positions.get(value.customModes[0]?.groups as object), { line: 3, column: 13 });
    assert.deepEqual(doc.positions.get(value.customModes[1] as object), { line: 4, column: 5 });
  });
});

describe('mode-file text', () => {
  it('cleans the characters Roo replaces and drops one BOM', () => {
    assert.equal(cleanRooText('\ufeffa\u00a0b\u200bc\u2018d\u2019e\u201cf\u201dg\u2010h\u2015i\u2212j\ufeff'), "a bc'd'e\"f\"g-h-i-j\ufeff");
  });

  it('parses the cleaned text, so smart quotes act as real quotes', () => {
    assert.deepEqual(readModeFileText('name: \u201chello\u201d\n', { jsonFallback: false }).value, { name: 'hello' });
  });

  it('turns an empty document into an empty object', () => {
    assert.deepEqual(readModeFileText('', { jsonFallback: true }).value, {});
    assert.deepEqual(readModeFileText('# nothing\n', { jsonFallback: false }).value, {});
  });

  it('falls back to JSON on the original text only when asked', () => {
    // A tab-indented key is invalid YAML but fine JSON.
    const text = '{\n\t"customModes": []\n}\n';
    assert.deepEqual(readModeFileText('{"a": [1,\n2]}', { jsonFallback: true }).value, { a: [1, 2] });
    const tabbed = 'customModes: []\n\tx: 1\n';
    assert.throws(() => readModeFileText(tabbed, { jsonFallback: true }), YamlError);
    assert.deepEqual(readModeFileText(text, { jsonFallback: true }).value, { customModes: [] });
    const duplicate = '{"a": 1, "a": 2}';
    assert.deepEqual(readModeFileText(duplicate, { jsonFallback: true }).value, { a: 2 });
    assert.throws(() => readModeFileText(duplicate, { jsonFallback: false }), YamlError);
  });

  it('throws the YAML error, with its position, when JSON fails too', () => {
    assert.throws(() => readModeFileText('a: 1\n- b\n', { jsonFallback: true }), (err) => err instanceof YamlError && err.line === 2);
  });
});
