// decidePath over a table of file systems and paths: text, traversal, absolute paths, links of
// every kind, patterns on the name and on the real target. No disk: the file system is a table.
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { decidePath, type PathRules } from '../../src/paths/decide.js';
import { onceEach } from '../../src/paths/live-fs.js';
import { MAX_LINK_HOPS, walk } from '../../src/paths/resolve.js';
import { lexical, parseClientPath, relativeText } from '../../src/paths/text.js';
import { fakeFs, type FakeOptions } from './paths-fake-fs.js';
import { PATTERNS, ROWS, TREE, summary, type PatternKey, type Row } from './paths-table.js';


const rulesOf = (pattern: PatternKey, options: Row[3]): PathRules =>
  ({ root: options?.root ?? '/p', confine: options?.confine ?? true, pattern: PATTERNS[pattern] });
const machineOf = (options: Row[3]): FakeOptions => ({ platform: options?.platform, home: options?.home });

describe('decidePath', () => {
  for (const [raw, pattern, expect, options] of ROWS) {
    const label = `${JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw)} (${pattern}${options ? ` ${JSON.stringify(options)}` : ''}) → ${expect}`;
    it(label, () => {
      const d = decidePath(raw, rulesOf(pattern, options), fakeFs(TREE, { ...machineOf(options), resolvesPrefixes: false }));
      assert.equal(summary(d), expect, JSON.stringify(d));
      if (!d.allowed) assert.ok(d.problem.length > 0, 'a refusal says why');
      // Neither shortcut (realpath when the path exists; the plain walk below the configured root)
      // may change an answer, nor a refusal's words.
      for (const route of [{ realpath: true, resolvesPrefixes: false }, { realpath: false }, { realpath: true }]) {
        const other = decidePath(raw, rulesOf(pattern, options), fakeFs(TREE, { ...machineOf(options), ...route }));
        assert.deepEqual(other, d, `along ${JSON.stringify(route)}`);
      }
    });
  }
});

/**
 * A relative POSIX text of plain names is judged from the text first (decidePath's shortcut). The
 * same text behind `./` takes the full way, and must get the same answer: the same words when it
 * is allowed or refused by the pattern, the same kind of refusal otherwise (whose words quote the
 * text as given).
 */
describe('the plain-name shortcut answers as the full way', () => {
  const texts = [
    ...ROWS.filter(([raw, , , o]) => (o?.platform ?? 'posix') === 'posix' && !raw.startsWith('/') && !raw.startsWith('~') && o?.root === undefined).map(([raw]) => raw),
    'a//b.md', 'a/./b.md', 'a/../b.md', 'docs/', '.', '..', '...', '.md', 'docs/..md', 'x:y.md', 'ab:c.md', '\\x.md', 'a\tb.md',
    'docs/a.md/x', 'src.ts/a.md', 'locked/a.md', 'dev', 'dev/a.md', 'indir/../docs/a.md', 'é.md', 'docs/é.md', 'a/'.repeat(2046) + 'b.md',
  ];
  // `./` changes what some texts are: it makes the empty text a folder, moves a text past the
  // length limit, and hides a drive letter; those are compared by the table alone.
  for (const raw of new Set(texts.filter((t) => t !== '' && t.length <= 4094 && t.charAt(1) !== ':'))) {
    for (const pattern of ['md', 'none'] as const) {
      it(`${JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw)} (${pattern})`, () => {
        const rules = rulesOf(pattern, undefined);
        for (const confine of [true, false]) {
          const quick = decidePath(raw, { ...rules, confine }, fakeFs(TREE));
          const full = decidePath(`./${raw}`, { ...rules, confine }, fakeFs(TREE));
          if (quick.allowed || quick.refusal === 'pattern') assert.deepEqual(quick, full);
          else assert.equal(summary(quick), summary(full), JSON.stringify({ quick, full }));
        }
      });
    }
  }
});

test('the table is large and covers every kind of outcome', () => {
  assert.ok(ROWS.length >= 100, `${ROWS.length} rows`);
  for (const kind of ['ok', 'text', 'outside', 'unresolvable', 'pattern']) {
    assert.ok(ROWS.some(([, , e]) => e.split(' ')[0] === kind), kind);
  }
});

test('a refusal says what and where', () => {
  const fs = () => fakeFs(TREE);
  const rules: PathRules = { root: '/p', confine: true, pattern: /\.md$/ };
  const out = decidePath('outdir\\secret.md', rules, fakeFs(TREE, { platform: 'win32' }));
  assert.ok(!out.allowed);
  assert.match(out.problem, /leads to \/o\/secret\.md, outside the project root \/p/);
  // On POSIX the same text is one file at the root, and the pattern sees that name.
  const evil = decidePath('src\\..\\docs\\evil.md', { ...rules, pattern: /^docs\// }, fs());
  assert.ok(!evil.allowed);
  assert.equal(evil.problem, '"src\\..\\docs\\evil.md" does not match ^docs\\/');
  const home = decidePath('~/docs/a.md', rules, fakeFs(TREE, { home: '/o' }));
  assert.ok(!home.allowed);
  assert.equal(home.problem, '"~/docs/a.md" (~ is the home folder /o) is outside the project root /p');
  const user = decidePath('~bob/a.md', rules, fs());
  assert.ok(!user.allowed);
  assert.match(user.problem, /^"~bob\/a\.md" starts with ~bob, which a shell reads as the home folder of user "bob"/);
  const noHome = decidePath('~/a.md', rules, fakeFs(TREE, { home: null }));
  assert.ok(!noHome.allowed);
  assert.equal(noHome.problem, '"~/a.md" starts with ~, the home folder, which is not known here');
  const alias = decidePath('alias.md', rules, fs());
  assert.ok(!alias.allowed);
  assert.deepEqual([alias.name, alias.target], ['alias.md', 'src.ts']);
  assert.match(alias.problem, /"alias\.md" leads to "src\.ts", which does not match \\\.md\$/);
  const loop = decidePath('loop3.md', rules, fs());
  assert.ok(!loop.allowed);
  assert.match(loop.problem, new RegExp(`more than ${MAX_LINK_HOPS} symbolic links`));
  const file = decidePath('docs/a.md/x.md', rules, fs());
  assert.ok(!file.allowed);
  assert.match(file.problem, /\/p\/docs\/a\.md is a file, not a folder/);
  const locked = decidePath('locked/x.md', rules, fs());
  assert.ok(!locked.allowed);
  assert.match(locked.problem, /\/p\/locked cannot be examined \(EACCES\)/);
});

test('sees a link swapped between two decisions', () => {
  const fs = fakeFs(TREE);
  const rules: PathRules = { root: '/p', confine: true, pattern: /\.md$/ };
  fs.set('/p/swap.md', '-> docs/a.md');
  assert.equal(summary(decidePath('swap.md', rules, fs)), 'ok swap.md → docs/a.md');
  fs.set('/p/swap.md', '-> /o/secret.md');
  assert.equal(summary(decidePath('swap.md', rules, fs)), 'outside');
  fs.set('/p/swap.md', '-> src.ts');
  assert.equal(summary(decidePath('swap.md', rules, fs)), 'pattern');
});

test('a link chain longer than the kernel allows is refused; one just under it is followed', () => {
  const tree: Record<string, string> = { '/p': 'dir', '/p/end.md': 'file' };
  for (let i = 0; i < MAX_LINK_HOPS + 1; i++) tree[`/p/l${i}`] = `-> ${i === MAX_LINK_HOPS ? 'end.md' : `l${i + 1}`}`;
  const rules: PathRules = { root: '/p', confine: true, pattern: null };
  assert.equal(summary(decidePath(`l${1}`, rules, fakeFs(tree))), 'ok l1 → end.md');
  assert.equal(summary(decidePath('l0', rules, fakeFs(tree))), 'unresolvable');
});

test('no file system is consulted when nothing needs it (confinement off, no pattern)', () => {
  const fs = fakeFs(TREE);
  const d = decidePath('outdir/secret.md', { root: '/p', confine: false, pattern: null }, fs);
  assert.equal(summary(d), 'ok outdir/secret.md → outdir/secret.md');
  assert.deepEqual(fs.asked, []);
});

test('one decision asks about each path once, and only about the root and the path', () => {
  const rules: PathRules = { root: '/p', confine: true, pattern: /\.md$/ };
  const full = fakeFs(TREE, { resolvesPrefixes: false });
  decidePath('docs/new/b.md', rules, onceEach(full));
  // The root, then the path walked on from it, and nothing past the first missing folder.
  assert.deepEqual(full.asked, ['/p', '/p/docs', '/p/docs/new']);
  // Below a root that resolves, no link on the way: only the path's own components, no realpath.
  for (const realpath of [false, true]) {
    const plain = fakeFs(TREE, { realpath });
    decidePath('docs/new/b.md', rules, onceEach(plain));
    assert.deepEqual(plain.asked, ['/p/docs', '/p/docs/new']);
    const through = fakeFs(TREE, { realpath });
    decidePath('docs/new/b.md', { ...rules, root: '/r' }, onceEach(through));
    assert.deepEqual(through.asked, ['/r/docs', '/r/docs/new']);
  }
  // A first name missing: the root itself is asked about (it might be what is missing).
  const fresh = fakeFs(TREE);
  decidePath('new/b.md', rules, onceEach(fresh));
  assert.deepEqual(fresh.asked, ['/p/new', '/p/.']);
  // A name the pattern refuses is refused before any lookup.
  const refused = fakeFs(TREE);
  assert.equal(summary(decidePath('new/b.ts', rules, onceEach(refused))), 'pattern');
  assert.deepEqual(refused.asked, []);
  const raw = fakeFs(TREE);
  decidePath('indir/../docs/a.md', { root: '/p', confine: true, pattern: null }, onceEach(raw));
  assert.equal(new Set(raw.asked).size, raw.asked.length, `asked twice: ${raw.asked.join(', ')}`);
});

test('a project root that is a file is never walked into, by either route', () => {
  // Paths are walked on from the root's real location only once it is known to be a folder.
  const rules: PathRules = { root: '/p/src.ts', confine: true, pattern: null };
  for (const raw of ['x.md', '.', 'a/b']) {
    for (const realpath of [false, true]) {
      const d = decidePath(raw, rules, fakeFs(TREE, { realpath }));
      assert.equal(summary(d), 'unresolvable', `${raw} (realpath ${realpath}): ${JSON.stringify(d)}`);
      assert.match(d.allowed ? '' : d.problem, /src\.ts is a file, not a folder/);
    }
  }
});

test('a 2,048-folder path costs a bounded number of lookups', () => {
  const fs = fakeFs(TREE);
  decidePath('a/'.repeat(2048), { root: '/p', confine: true, pattern: null }, onceEach(fs));
  assert.ok(fs.asked.length <= 40, `${fs.asked.length} lookups`);
});

test('walk treats what follows a missing folder as text, and comes back to real ground on `..`', () => {
  const fs = fakeFs(TREE);
  assert.deepEqual(walk([], ['p', 'new', 'x', '..', '..', 'outdir', 'secret.md'], fs), { ok: true, parts: ['o', 'secret.md'], exists: true });
  assert.deepEqual(walk([], ['p', 'new', '..', 'alias.md'], fs), { ok: true, parts: ['p', 'src.ts'], exists: true });
  assert.deepEqual(walk([], ['..', '..', 'p'], fs), { ok: true, parts: ['p'], exists: true });
});

test('text helpers: parse, lexical and relative', () => {
  assert.deepEqual(parseClientPath('a\\b//c/', 'win32'), { ok: true, path: { absolute: false, parts: ['a', 'b', 'c', '.'], tilde: null } });
  assert.deepEqual(parseClientPath('a\\b//c/', 'posix'), { ok: true, path: { absolute: false, parts: ['a\\b', 'c', '.'], tilde: null } });
  assert.deepEqual(parseClientPath('\\\\server\\share\\x', 'win32'), { ok: true, path: { absolute: true, parts: ['server', 'share', 'x'], tilde: null } });
  assert.deepEqual(parseClientPath('\\\\server\\share\\x', 'posix'), { ok: true, path: { absolute: false, parts: ['\\\\server\\share\\x'], tilde: null } });
  assert.deepEqual(parseClientPath('~user/x', 'posix'), { ok: true, path: { absolute: false, parts: ['~user', 'x'], tilde: '~user' } });
  assert.deepEqual(parseClientPath('~\\x', 'win32'), { ok: true, path: { absolute: false, parts: ['~', 'x'], tilde: '~' } });
  assert.deepEqual(parseClientPath('a/~', 'posix'), { ok: true, path: { absolute: false, parts: ['a', '~'], tilde: null } });
  assert.deepEqual(lexical(['p'], ['..', '..', 'x']), { parts: ['x'], above: 2 });
  assert.deepEqual(lexical(['p'], ['a', '..', '.', 'b']), { parts: ['p', 'b'], above: 0 });
  assert.equal(relativeText(['p'], ['o', 'x']), '../o/x');
  assert.equal(relativeText(['p'], ['p']), '.');
});
