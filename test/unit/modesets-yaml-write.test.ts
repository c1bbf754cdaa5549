import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readModeFileText } from '../../src/modes/mode-file.js';
import { toYaml, type Plain } from '../../src/yaml/write.js';

const TRICKY: string[] = [
  '', ' ', 'plain words', 'true', 'False', 'yes', 'NO', 'on', 'off', 'y', 'n', 'null', 'Null', '~',
  '0', '-1', '1.5', '1e3', '0x1F', '0o17', '.inf', '-.inf', '.nan', '12:30', '2025-01-01',
  'a: b', 'a #b', '#comment', '- item', '-', '?', '? key', ': x', '[flow]', '{a: 1}', '&anchor', '*alias', '!tag',
  '|', '>', '%directive', '@at', '`tick', '"double"', "'single'", 'back\\slash', 'tab\there', 'trailing ',
  ' leading', 'a,b', '---', '...', 'line1\nline2', 'line1\nline2\n', 'two trailing\n\n', '\nstarts with newline',
  '  indented\nsecond', 'first\n  indented second\n', 'blank\n\nline', 'spaces only line\n   \nafter', 'crlf\r\nline',
  'unicode 💻 Code', '🏗️ Architect', 'é à ü', 'no\u00a0break', 'zero\u200bwidth', 'curly \u2018q\u2019 \u201cdq\u201d', 'dash \u2014 and \u2212',
  'ctrl \u0001 \u007f \u0085', 'sep \u2028 \u2029', 'bom \ufeff', '\\.md$', '^src/.*\\.(ts|tsx)$', 'key: value\n- list\n# hash\n',
  'ends with backslash \\', 'quote " inside', 'emoji at end 🪃',
];

test('every tricky string reads back exactly after toYaml, as a value, a key and a list item', () => {
  for (const s of TRICKY) {
    const doc: Plain = { value: s, list: [s, [s, { fileRegex: s }]], [s === '' ? 'empty' : s]: s };
    const text = toYaml(doc);
    const back = readModeFileText(text, { jsonFallback: false }).value;
    assert.deepEqual(back, doc, `round trip failed for ${JSON.stringify(s)}:\n${text}`);
  }
});

test('scalars keep their types: numbers, booleans, null, empty collections', () => {
  const doc: Plain = { n: 3, f: -2.5, big: 1e21, t: true, f2: false, z: null, a: [], o: {}, nested: [[1, 2], [], [{}]] };
  const back = readModeFileText(toYaml(doc), { jsonFallback: false }).value;
  assert.deepEqual(back, doc);
});

test('a mode set with tuples and multi-line texts round-trips and stays readable', () => {
  const doc: Plain = {
    description: 'Research set',
    customModes: [{
      slug: 'architect', name: '🏗️ Architect', roleDefinition: 'Plans things.\nThen writes them down.\n',
      groups: ['read', ['edit', { fileRegex: '\\.md$', description: 'Markdown only' }], 'mcp'],
    }],
  };
  const text = toYaml(doc, ['header line']);
  assert.match(text, /^# header line\n/);
  assert.match(text, /roleDefinition: \|\n {6}Plans things\.\n/);
  assert.deepEqual(readModeFileText(text, { jsonFallback: false }).value, doc);
});

test('strings that look like other types are always quoted', () => {
  const text = toYaml({ a: 'true', b: '1', c: 'null', d: 'x: y' });
  assert.equal(text, 'a: "true"\nb: "1"\nc: "null"\nd: "x: y"\n');
});
