// Mode-file edits in the file's own format: YAML in place, JSON re-serialised with its indent, and
// layouts the YAML editor cannot change in place written out whole (and said so).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatOf, modeEntries, removeModeText, upsertModeText } from '../../src/authoring/mode-file-edit.js';

const mode = { slug: 'm', name: 'M', roleDefinition: 'r', groups: ['read'] };

test('an inline YAML list is rewritten whole, correctly, and reported as not preserved', () => {
  const text = '# c\n{customModes: [{slug: a, name: A, roleDefinition: r, groups: []}]}\n';
  assert.equal(formatOf(text), 'yaml');
  const out = upsertModeText(text, mode);
  assert.equal(out.preserved, false);
  assert.deepEqual(modeEntries(out.text).map((e: any) => e.slug), ['a', 'm']);
});

test('JSON with tabs keeps tabs; removing every copy of a slug; a missing slug is null', () => {
  const text = JSON.stringify({ customModes: [mode, { ...mode, slug: 'x' }, mode] }, null, '\t');
  const out = removeModeText(text, 'm')!;
  assert.equal(out.format, 'json');
  assert.equal(out.text, JSON.stringify({ customModes: [{ ...mode, slug: 'x' }] }, null, '\t'));
  assert.equal(removeModeText(text, 'nope'), null);
  assert.equal(upsertModeText(null, mode).text, 'customModes:\n  - slug: m\n    name: M\n    roleDefinition: r\n    groups:\n      - read\n');
});
