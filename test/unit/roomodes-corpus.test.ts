// Runs readModeFileText over every real mode file in the shared corpus and compares the result with
// what Roo Code's own loader produced (NNN.expected.json), error line and column included. Skipped,
// with one line naming the folder, when the corpus is not beside the repository.
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { readModeFileText } from '../../src/modes/mode-file.js';
import { YamlError } from '../../src/yaml/read.js';
import { ROOMODES_CORPUS as corpusDir, corpusMissing } from '../shared-corpus.js';

type Expected = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Broken files whose expected error position we knowingly do not reproduce, with the reason.
 * Empty: every located error in the corpus matches line and column.
 */
const POSITION_EXCEPTIONS: ReadonlyMap<string, string> = new Map();

test('every corpus test skips with the one reason, naming ../shared/corpus/roomodes, so a run prints it once', () => {
  // test/reporter.mjs prints each distinct skip reason once; the corpus tests all take theirs from test/shared-corpus.ts.
  if (corpusMissing) assert.match(corpusMissing, /\.\.\/shared\/corpus\/roomodes/);
  const testDir = new URL('..', import.meta.url);
  const files = readdirSync(testDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts'));
  const corpusTests = files.filter((f) => readFileSync(new URL(f, testDir), 'utf8').includes(`shared-corpus.js'`));
  assert.ok(corpusTests.length >= 4, `found the corpus tests: ${corpusTests.join(', ')}`);
  for (const f of corpusTests) {
    const text = readFileSync(new URL(f, testDir), 'utf8');
    assert.match(text, /skip: corpusMissing/, f);
    assert.doesNotMatch(text, /skip: ['"`]|t\.skip\(/, `${f} skips only with corpusMissing`);
  }
});

if (corpusMissing) test('real .roomodes corpus', { skip: corpusMissing }, () => {});
else describeCorpus(readdirSync(corpusDir).filter((name) => /^\d+\.roomodes$/.test(name)).sort());

function describeCorpus(files: string[]): void {
  describe('real .roomodes corpus', () => {
    it('finds the corpus', () => {
      assert.ok(files.length >= 60, `expected the corpus in ${corpusDir}, found ${files.length} files`);
    });

    for (const name of files) {
      const id = name.slice(0, -'.roomodes'.length);
      const expected = JSON.parse(readFileSync(`${corpusDir}${id}.expected.json`, 'utf8')) as Expected;
      const text = readFileSync(`${corpusDir}${name}`, 'utf8');

      if (expected.ok) {
        it(`${id} loads to the same value as Roo's loader`, () => {
          assert.deepStrictEqual(readModeFileText(text, { jsonFallback: true }).value, expected.value);
        });
        continue;
      }

      const located = /at line (\d+), column (\d+)/.exec(expected.error);
      it(`${id} is refused with a located YamlError${located ? ` at line ${located[1]}, column ${located[2]}` : ''}`, () => {
        let caught: unknown;
        try {
          readModeFileText(text, { jsonFallback: true });
        } catch (err) {
          caught = err;
        }
        assert.ok(caught instanceof YamlError, `expected a YamlError, got ${String(caught)}`);
        assert.ok(caught.line >= 1 && caught.column >= 1, caught.message);
        if (located === null || POSITION_EXCEPTIONS.has(id)) return;
        assert.equal(caught.line, Number(located[1]), `${caught.message}\nexpected: ${expected.error.split('\n')[0]}`);
        assert.equal(caught.column, Number(located[2]), `${caught.message}\nexpected: ${expected.error.split('\n')[0]}`);
      });
    }
  });
}
