// The format-preserving YAML sequence editor: each edit touches only its item's lines, keeps
// comments, blank lines, CRLF and a BOM, and refuses layouts it cannot edit safely.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editSequence, YamlEditError } from '../../src/yaml/edit.js';
import { parseYaml } from '../../src/yaml/read.js';

const DOC = `# Project modes — hand-written, keep the comments.
customModes:
  # The first mode.
  - slug: a
    name: A   # inline comment
    roleDefinition: |
      Line one.
        - indented dash, not an item
    groups: [read]

  # The second mode.
  - slug: b
    name: B
    groups:
      - read
      - - edit
        - fileRegex: \\.md$

  - slug: c
    name: C
    groups: []
# trailing comment
other: kept
`;

const value = (text: string): any => parseYaml(text).value;

test('replace rewrites one item and keeps every other line byte for byte', () => {
  const out = editSequence(DOC, 'customModes', { op: 'replace', index: 1, value: { slug: 'b', name: 'B2', groups: ['read'] } });
  assert.ok(out.includes(DOC.slice(0, DOC.indexOf('  - slug: b'))), 'everything before b is untouched');
  assert.ok(out.includes('  # The second mode.\n  - slug: b\n    name: B2\n'), 'the item keeps its comment');
  assert.ok(out.endsWith(DOC.slice(DOC.indexOf('\n  - slug: c'))), 'everything after b is untouched');
  assert.deepEqual(value(out).customModes[1], { slug: 'b', name: 'B2', groups: ['read'] });
  assert.equal(value(out).other, 'kept');
});

test('remove takes the item and its own comment, nothing else', () => {
  const out = editSequence(DOC, 'customModes', { op: 'remove', index: 1 });
  assert.doesNotMatch(out, /second mode|slug: b/);
  assert.ok(out.includes(DOC.slice(0, DOC.indexOf('  # The second mode.'))));
  assert.ok(out.endsWith(DOC.slice(DOC.indexOf('  - slug: c'))));
  assert.deepEqual(value(out).customModes.map((m: any) => m.slug), ['a', 'c']);
});

test('append follows the spacing of the list; the last item removed leaves an empty list', () => {
  const out = editSequence(DOC, 'customModes', { op: 'append', value: { slug: 'd', name: 'D', groups: ['read', ['edit', { fileRegex: '\\.ts$' }]] } });
  assert.ok(out.startsWith(DOC.slice(0, DOC.indexOf('# trailing comment'))));
  assert.match(out, /    groups: \[\]\n\n  - slug: d\n    name: D\n/);
  assert.deepEqual(value(out).customModes[3].groups, ['read', ['edit', { fileRegex: '\\.ts$' }]]);
  const one = 'customModes:  # mine\n  - slug: x\n    name: X\n';
  assert.equal(editSequence(one, 'customModes', { op: 'remove', index: 0 }), 'customModes: []  # mine\n');
});

test('append works on [], on a key holding nothing, on a missing key and on an empty file', () => {
  const item = { slug: 'new', name: 'New', groups: [] };
  assert.equal(editSequence('customModes: []\n', 'customModes', { op: 'append', value: item }), 'customModes:\n  - slug: new\n    name: New\n    groups: []\n');
  assert.equal(editSequence('customModes:\nother: 1\n', 'customModes', { op: 'append', value: item }), 'customModes:\n  - slug: new\n    name: New\n    groups: []\nother: 1\n');
  assert.equal(editSequence('# only a comment\n', 'customModes', { op: 'append', value: item }), '# only a comment\ncustomModes:\n  - slug: new\n    name: New\n    groups: []\n');
  assert.equal(editSequence('', 'customModes', { op: 'append', value: item }), 'customModes:\n  - slug: new\n    name: New\n    groups: []\n');
});

test('an indentless list keeps its indentation; CRLF and a BOM are kept', () => {
  const text = '\ufeffcustomModes:\r\n- slug: a\r\n  name: A\r\n- slug: b\r\n  name: B\r\n';
  const out = editSequence(text, 'customModes', { op: 'replace', index: 0, value: { slug: 'a', name: 'Z' } });
  assert.equal(out, '\ufeffcustomModes:\r\n- slug: a\r\n  name: Z\r\n- slug: b\r\n  name: B\r\n');
});

test('refuses what it cannot edit in place: inline lists, a non-list key, a non-mapping document', () => {
  assert.throws(() => editSequence('customModes: [{slug: a}]\n', 'customModes', { op: 'append', value: { slug: 'b' } }), YamlEditError);
  assert.throws(() => editSequence('customModes: 3\n', 'customModes', { op: 'append', value: { slug: 'b' } }), YamlEditError);
  assert.throws(() => editSequence('- a\n', 'customModes', { op: 'append', value: { slug: 'b' } }), YamlEditError);
  assert.throws(() => editSequence('{customModes: [{slug: a}]}\n', 'customModes', { op: 'replace', index: 0, value: { slug: 'b' } }), YamlEditError);
});
