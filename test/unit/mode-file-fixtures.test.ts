// Reads each hand-written mode file of test/fixtures/mode-files (block scalars, anchors, flow style,
// CRLF, BOM, JSON, broken files…) and compares it with its NAME.expected.json, error position included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { readModeFileText } from '../../src/modes/mode-file.js';
import { YamlError } from '../../src/yaml/read.js';

const DIR = new URL('../fixtures/mode-files/', import.meta.url);

/** Roo's reading of the file; roo_position only where our error position differs from Roo's (see PROVENANCE.md). */
type Expected = { ok: true; via?: 'json'; value: unknown }
  | { ok: false; line: number; column: number; error: string; roo_position?: [number, number]; why?: string };

const files = readdirSync(DIR).filter((n) => /\.(yaml|roomodes)$/.test(n)).sort();

test('the fixture folder holds the feature files', () => {
  // One file per feature; a missing one would silently shrink the coverage below.
  for (const name of ['block-scalars.yaml', 'anchors-aliases.yaml', 'flow-collections.yaml', 'crlf.yaml', 'bom-clean-chars.yaml',
    'multi-document.yaml', 'json-form.roomodes', 'json-fallback.roomodes', 'broken-indent.yaml']) {
    assert.ok(files.includes(name), name);
  }
});

for (const name of files) {
  const expected = JSON.parse(readFileSync(new URL(name.replace(/\.\w+$/, '.expected.json'), DIR), 'utf8')) as Expected;
  const text = readFileSync(new URL(name, DIR), 'utf8');
  // Roo falls back to JSON for .roomodes only, never for the global custom_modes.yaml.
  const options = { jsonFallback: name.endsWith('.roomodes') };
  if (expected.ok) {
    test(`${name} loads to the expected value`, () => {
      assert.deepStrictEqual(readModeFileText(text, options).value, expected.value);
    });
    continue;
  }
  test(`${name} is refused at line ${expected.line}, column ${expected.column} (${expected.error})`, () => {
    assert.throws(() => readModeFileText(text, options), (err: unknown) => {
      assert.ok(err instanceof YamlError, String(err));
      assert.deepEqual([err.line, err.column], [expected.line, expected.column], err.message);
      return true;
    });
  });
}
