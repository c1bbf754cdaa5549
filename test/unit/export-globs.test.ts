import { test } from 'node:test';
import assert from 'node:assert/strict';
import { regexToGlobs } from '../../src/export/globs.js';
import { globRegex, type Reading } from '../protocol/opencode-eval.js';

/** Normalised project-relative paths: what Roo's pattern and OpenCode's glob both see. */
const SEGMENTS = ['docs', 'src', 'README.md', 'a.md', 'b.mdx', 'x.ts', 'y.test.ts', 'c.yaml', 'd.yml', 'mydocs', 'docs.md', 'z.tsx', 'e.js', 'specs', 'notes.txt'];
const PATHS = (() => {
  const out = new Set<string>();
  for (const a of SEGMENTS) {
    out.add(a);
    for (const b of SEGMENTS) {
      out.add(`${a}/${b}`);
      for (const c of ['README.md', 'x.ts', 'a.md', 'docs']) out.add(`${a}/${b}/${c}`);
    }
  }
  return [...out];
})();

const TRANSLATABLE = [
  '\\.md$', '^docs/', '\\.(md|mdx)$', '^(docs|specs)/.*\\.md$', '\\.ya?ml$', '/README\\.md$', 'docs',
  '[jt]sx?$', '.*', '^a.*/b$', '\\.test\\.[jt]s$', '^src/.*/x\\.ts$', '^README\\.md$', 'docs/', '(^docs/|\\.txt$)', '^docs$',
];

test('every translated fileRegex allows exactly the paths the regex allows, under both glob readings', () => {
  assert.ok(PATHS.length > 1000);
  for (const source of TRANSLATABLE) {
    const t = regexToGlobs(source);
    if (!t.ok) assert.fail(`${source}: ${t.reason}`);
    const regex = new RegExp(source);
    for (const reading of ['older', 'newer'] as Reading[]) {
      const globs: RegExp[] = t.globs.map((g: string) => globRegex(g, reading));
      for (const path of PATHS) {
        assert.equal(globs.some((g) => g.test(path)), regex.test(path), `${source} → ${t.globs.join(' ')} (${reading}) on ${path}`);
      }
    }
  }
});

test('a fileRegex with no exact glob is refused with the construct named', () => {
  const cases: [string, RegExp][] = [
    ['^src/[^/]*\\.ts$', /negated character class/], ['\\d+', /escape "\\d"/], ['.+\\.md$', /"\."/],
    ['^a*b', /quantifier "\*"/], ['(?=x)', /lookaround/], ['\\*\\.md', /escape "\\\*"/], ['(a', /not closed/],
  ];
  for (const [source, why] of cases) {
    const t = regexToGlobs(source);
    assert.equal(t.ok, false, source);
    assert.match((t as { reason: string }).reason, why, source);
  }
});
