// Runs every case of the official JSON-Schema-Test-Suite (the draft 2020-12 files vendored in
// test/fixtures, see PROVENANCE.md) against compileSchema: valid ⇔ no issues. Skips only the listed groups.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { compileSchema, type JsonSchema } from '../../src/schema/validate.js';

const SUITE_DIR = new URL('../fixtures/json-schema-test-suite/draft2020-12/', import.meta.url);

/**
 * The only groups not run, keyed by "file | group description", each with its reason. Every one
 * uses a keyword the validator deliberately does not support (so compiling it must throw, which
 * the test below also checks), rather than one it gets wrong.
 */
const SKIPPED_GROUPS: ReadonlyMap<string, string> = new Map([
  ['additionalProperties.json | additionalProperties being false does not allow other properties', 'uses patternProperties'],
  ['additionalProperties.json | non-ASCII pattern with additionalProperties', 'uses patternProperties'],
  ['additionalProperties.json | additionalProperties with propertyNames', 'uses propertyNames'],
  ['additionalProperties.json | dependentSchemas with additionalProperties', 'uses dependentSchemas'],
  ['allOf.json | allOf combined with anyOf, oneOf', 'uses multipleOf'],
  ['not.json | collect annotations inside a \'not\', even if collection is disabled', 'uses unevaluatedProperties'],
  ['properties.json | properties, patternProperties, additionalProperties interaction', 'uses patternProperties'],
]);

interface SuiteCase { description: string; data: unknown; valid: boolean }
interface SuiteGroup { description: string; schema: JsonSchema; tests: SuiteCase[] }

const files = readdirSync(SUITE_DIR).filter((f) => f.endsWith('.json')).sort();
const counts = { files: files.length, groups: 0, cases: 0, skippedGroups: 0, skippedCases: 0 };
const skipKeysSeen = new Set<string>();

for (const file of files) {
  const groups = JSON.parse(readFileSync(new URL(file, SUITE_DIR), 'utf8')) as SuiteGroup[];
  for (const group of groups) {
    counts.groups++;
    const key = `${file} | ${group.description}`;
    const reason = SKIPPED_GROUPS.get(key);
    if (reason !== undefined) {
      skipKeysSeen.add(key);
      counts.skippedGroups++;
      counts.skippedCases += group.tests.length;
      test(`${key}: refuses to compile (skipped: ${reason})`, () => {
        assert.throws(() => compileSchema(group.schema), { name: 'SchemaCompileError' });
      });
      continue;
    }
    test(key, () => {
      const validate = compileSchema(group.schema);
      for (const c of group.tests) {
        counts.cases++;
        const issues = validate(c.data);
        assert.equal(issues.length === 0, c.valid,
          `${c.description}: expected ${c.valid ? 'valid' : 'invalid'}, got ${JSON.stringify(issues)}`);
      }
    });
  }
}

test('every skip-list entry names a group that exists, and counts are reported', () => {
  assert.deepEqual([...SKIPPED_GROUPS.keys()].filter((k) => !skipKeysSeen.has(k)), []);
  assert.ok(counts.files > 0 && counts.cases > 0);
  process.stderr.write(`json-schema-suite: ${counts.files} files, ${counts.groups} groups `
    + `(${counts.skippedGroups} skipped), ${counts.cases} cases run, ${counts.skippedCases} cases skipped\n`);
});
