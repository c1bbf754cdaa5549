// decidePath over a table of file systems and paths: text, traversal, absolute paths, links of
// every kind, patterns on the name and on the real target. No disk: the file system is a table.
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { decidePath, type PathDecision, type PathRules } from '../../src/paths/decide.js';
import { onceEach } from '../../src/paths/live-fs.js';
import { MAX_LINK_HOPS, walk } from '../../src/paths/resolve.js';
import { lexical, parseClientPath, relativeText } from '../../src/paths/text.js';
import { fakeFs, type FakeTree } from './paths-fake-fs.js';

/** The project /p, a folder /o outside it, and links of every shape between them. */
const TREE: FakeTree = {
  '/p': 'dir',
  '/p/docs': 'dir',
  '/p/docs/a.md': 'file',
  '/p/docs/é.md': 'file',
  '/p/src': 'dir',
  '/p/src/main.ts': 'file',
  '/p/src.ts': 'file',
  '/p/.roomodes': 'file',
  '/p/alias.md': '-> src.ts', // inside, to a file the pattern \.md$ would refuse
  '/p/x.md': '-> /o/nowhere.md', // dangling, outside
  '/p/y.md': '-> nowhere.md', // dangling, inside
  '/p/outdir': '-> /o',
  '/p/indir': '-> src',
  '/p/docslink': '-> docs',
  '/p/chain1.md': '-> chain2.md',
  '/p/chain2.md': '-> docs/a.md',
  '/p/loop1': '-> loop2',
  '/p/loop2': '-> loop1',
  '/p/self': '-> self',
  '/p/up': '-> ..',
  '/p/deep': '-> ../p/docs',
  '/p/abslink.md': '-> /p/docs/a.md',
  '/p/relout': '-> ../o/secret.md',
  '/p/tdir': '-> docs/',
  '/p/tfile': '-> src.ts/',
  '/p/bs': '-> ..\\o',
  '/p/locked': 'EACCES',
  '/p/dev': 'other',
  '/o': 'dir',
  '/o/secret.md': 'file',
  '/r': '-> /p', // a root given through a link
};

const PATTERNS = { none: null, md: /\.md$/, docs: /^docs\//, src: /^src\// } as const;
type PatternKey = keyof typeof PATTERNS;

/** `ok name → target`, or the refusal expected. */
type Expect = `ok ${string}` | 'text' | 'outside' | 'unresolvable' | 'pattern';
type Row = [raw: string, pattern: PatternKey, expect: Expect, options?: { root?: string; confine?: boolean }];

const ROWS: Row[] = [
  // Plain names, and the many spellings of one
  ['docs/a.md', 'none', 'ok docs/a.md → docs/a.md'],
  ['./docs/a.md', 'none', 'ok docs/a.md → docs/a.md'],
  ['docs//a.md', 'none', 'ok docs/a.md → docs/a.md'],
  ['docs/./a.md', 'none', 'ok docs/a.md → docs/a.md'],
  ['docs\\a.md', 'none', 'ok docs/a.md → docs/a.md'],
  ['docs\\\\a.md', 'none', 'ok docs/a.md → docs/a.md'],
  ['.\\docs\\a.md', 'none', 'ok docs/a.md → docs/a.md'],
  ['docs/', 'none', 'ok docs → docs'],
  ['.', 'none', 'ok . → .'],
  ['./', 'none', 'ok . → .'],
  ['docs/new/deeper/b.md', 'none', 'ok docs/new/deeper/b.md → docs/new/deeper/b.md'],
  ['a.md/', 'none', 'ok a.md → a.md'],
  ['a/'.repeat(2048), 'none', `ok ${Array(2048).fill('a').join('/')} → ${Array(2048).fill('a').join('/')}`],
  ['C:x', 'none', 'ok C:x → C:x'],
  // Text no file name carries
  ['', 'none', 'text'],
  ['a\u0000b.md', 'none', 'text'],
  ['docs/a.md\n', 'none', 'text'],
  ['\u001b[2Jdocs/a.md', 'none', 'text'],
  ['docs/\u007fa.md', 'none', 'text'],
  ['docs/\ta.md', 'none', 'text'],
  ['a'.repeat(4097), 'none', 'text'],
  ['C:\\Windows\\system.ini', 'none', 'text'],
  ['c:/x', 'none', 'text'],
  ['C:', 'none', 'text'],
  // A file used as a folder
  ['docs/a.md/', 'none', 'unresolvable'],
  ['docs/a.md/.', 'none', 'unresolvable'],
  ['docs/a.md/x', 'none', 'unresolvable'],
  ['src.ts/x', 'none', 'unresolvable'],
  ['dev/x', 'none', 'unresolvable'],
  ['dev', 'none', 'ok dev → dev'],
  ['locked/x', 'none', 'unresolvable'],
  // `..` and `.`: applied as text for the name; never past the root
  ['..', 'none', 'outside'],
  ['../', 'none', 'outside'],
  ['../o/secret.md', 'none', 'outside'],
  ['../p/docs/a.md', 'none', 'outside'],
  ['docs/../../o/secret.md', 'none', 'outside'],
  ['..\\..\\etc\\passwd', 'none', 'outside'],
  ['docs\\..\\..\\o', 'none', 'outside'],
  ['../'.repeat(1365), 'none', 'outside'],
  ['docs/../src/main.ts', 'none', 'ok src/main.ts → src/main.ts'],
  ['docs/../src/main.ts', 'docs', 'pattern'],
  ['docs/../.roomodes', 'docs', 'pattern'],
  ['docs\\..\\.roomodes', 'docs', 'pattern'],
  ['docs/./../src/main.ts', 'docs', 'pattern'],
  ['docs/..', 'none', 'ok . → .'],
  ['a/..', 'none', 'ok . → .'],
  ['new/../docs/a.md', 'docs', 'ok docs/a.md → docs/a.md'],
  ['new/../../o/secret.md', 'none', 'outside'],
  ['src/../docs/a.md', 'docs', 'ok docs/a.md → docs/a.md'],
  // Absolute paths
  ['/p/docs/a.md', 'none', 'ok docs/a.md → docs/a.md'],
  ['/p/docs/a.md', 'docs', 'ok docs/a.md → docs/a.md'],
  ['/p', 'none', 'ok . → .'],
  ['/p/', 'none', 'ok . → .'],
  ['//p//docs/a.md', 'none', 'ok docs/a.md → docs/a.md'],
  ['\\p\\docs\\a.md', 'none', 'ok docs/a.md → docs/a.md'],
  ['/p/docs/../../p/docs/a.md', 'docs', 'ok docs/a.md → docs/a.md'],
  ['/p/../o/secret.md', 'none', 'outside'],
  ['/o/secret.md', 'none', 'outside'],
  ['/etc/passwd', 'none', 'outside'],
  ['/', 'none', 'outside'],
  ['/pp/x.md', 'none', 'outside'],
  ['/P/docs/a.md', 'none', 'outside'],
  // Patterns: case-sensitive, on the normalised project-relative name
  ['docs/a.md', 'md', 'ok docs/a.md → docs/a.md'],
  ['docs/new.md', 'md', 'ok docs/new.md → docs/new.md'],
  ['src/main.ts', 'md', 'pattern'],
  ['docs/a.MD', 'md', 'pattern'],
  ['Docs/a.md', 'docs', 'pattern'],
  ['DOCS/a.md', 'docs', 'pattern'],
  ['docs/a.md', 'docs', 'ok docs/a.md → docs/a.md'],
  ['./docs/a.md', 'docs', 'ok docs/a.md → docs/a.md'],
  ['docs\\a.md', 'docs', 'ok docs/a.md → docs/a.md'],
  ['docs//a.md', 'docs', 'ok docs/a.md → docs/a.md'],
  ['docs/é.md', 'md', 'ok docs/é.md → docs/é.md'],
  ['docs/e\u0301.md', 'md', 'ok docs/e\u0301.md → docs/e\u0301.md'],
  ['docs/ü/new.md', 'docs', 'ok docs/ü/new.md → docs/ü/new.md'],
  ['docs/📄.md', 'md', 'ok docs/📄.md → docs/📄.md'],
  ['.', 'md', 'pattern'],
  ['docs/', 'md', 'pattern'],
  ['docs/a.md.ts', 'md', 'pattern'],
  ['src/main.ts', 'src', 'ok src/main.ts → src/main.ts'],
  // Links: the real target must stay inside and match too
  ['alias.md', 'none', 'ok alias.md → src.ts'],
  ['alias.md', 'md', 'pattern'],
  ['x.md', 'none', 'outside'],
  ['x.md', 'md', 'outside'],
  ['x.md/', 'none', 'outside'],
  ['y.md', 'md', 'ok y.md → nowhere.md'],
  ['outdir/secret.md', 'none', 'outside'],
  ['outdir\\secret.md', 'none', 'outside'],
  ['outdir\\secret.md', 'md', 'outside'],
  ['outdir/new.md', 'none', 'outside'],
  ['outdir', 'none', 'outside'],
  ['outdir/', 'none', 'outside'],
  ['indir/main.ts', 'none', 'ok indir/main.ts → src/main.ts'],
  ['indir/main.ts', 'src', 'pattern'],
  ['docslink/a.md', 'docs', 'pattern'],
  ['docslink/a.md', 'md', 'ok docslink/a.md → docs/a.md'],
  ['chain1.md', 'md', 'ok chain1.md → docs/a.md'],
  ['chain1.md', 'docs', 'pattern'],
  ['loop1', 'none', 'unresolvable'],
  ['loop1/x.md', 'none', 'unresolvable'],
  ['self', 'none', 'unresolvable'],
  ['up', 'none', 'outside'],
  ['up/p/docs/a.md', 'none', 'ok up/p/docs/a.md → docs/a.md'],
  ['up/o/secret.md', 'none', 'outside'],
  ['deep/a.md', 'none', 'ok deep/a.md → docs/a.md'],
  ['deep/a.md', 'docs', 'pattern'],
  ['abslink.md', 'md', 'ok abslink.md → docs/a.md'],
  ['relout', 'none', 'outside'],
  ['tdir/a.md', 'docs', 'pattern'],
  ['tdir/a.md', 'md', 'ok tdir/a.md → docs/a.md'],
  ['tfile', 'none', 'unresolvable'],
  ['bs', 'none', 'ok bs → ..\\o'],
  // `..` after a link: the kernel climbs from the target, path.resolve from the link; both must pass
  ['outdir/../docs/a.md', 'none', 'outside'],
  ['outdir/../p/docs/a.md', 'none', 'ok p/docs/a.md → p/docs/a.md'],
  ['indir/../docs/a.md', 'docs', 'ok docs/a.md → docs/a.md'],
  ['docslink/../src.ts', 'md', 'pattern'],
  ['deep/../../o/secret.md', 'none', 'outside'],
  ['up/../docs/a.md', 'none', 'outside'],
  // A root given through a link: its real location counts as the project too
  ['docs/a.md', 'docs', 'ok docs/a.md → docs/a.md', { root: '/r' }],
  ['/p/docs/a.md', 'docs', 'ok docs/a.md → docs/a.md', { root: '/r' }],
  ['/r/docs/a.md', 'docs', 'ok docs/a.md → docs/a.md', { root: '/r' }],
  ['abslink.md', 'md', 'ok abslink.md → docs/a.md', { root: '/r' }],
  ['../p/docs/a.md', 'none', 'outside', { root: '/r' }],
  ['outdir/x.md', 'none', 'outside', { root: '/r' }],
  ['/r/../o/secret.md', 'none', 'outside', { root: '/r' }],
  ['x.md', 'md', 'ok x.md → x.md', { root: '/missing/project' }],
  ['/p/', 'none', 'ok . → .', { root: '/p/' }],
  // Confinement off: outside is allowed, the pattern still sees both (relative, with `..`)
  ['../o/secret.md', 'none', 'ok ../o/secret.md → ../o/secret.md', { confine: false }],
  ['/etc/passwd', 'none', 'ok ../etc/passwd → ../etc/passwd', { confine: false }],
  ['x.md', 'md', 'ok x.md → ../o/nowhere.md', { confine: false }],
  ['outdir/secret.md', 'docs', 'pattern', { confine: false }],
  ['alias.md', 'md', 'pattern', { confine: false }],
  ['loop1', 'none', 'ok loop1 → loop1', { confine: false }],
  ['loop1', 'md', 'unresolvable', { confine: false }],
  ['a\u0000b', 'none', 'text', { confine: false }],
];

function summary(d: PathDecision): string {
  return d.allowed ? `ok ${d.name} → ${d.target}` : d.refusal;
}

describe('decidePath', () => {
  for (const [raw, pattern, expect, options] of ROWS) {
    const rules: PathRules = { root: options?.root ?? '/p', confine: options?.confine ?? true, pattern: PATTERNS[pattern] };
    const label = `${JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw)} (${pattern}${options ? ` ${JSON.stringify(options)}` : ''}) → ${expect}`;
    it(label, async () => {
      const d = await decidePath(raw, rules, fakeFs(TREE));
      assert.equal(summary(d), expect, JSON.stringify(d));
      if (!d.allowed) assert.ok(d.problem.length > 0, 'a refusal says why');
    });
  }
});

test('the table is large and covers every kind of outcome', () => {
  assert.ok(ROWS.length >= 100, `${ROWS.length} rows`);
  for (const kind of ['ok', 'text', 'outside', 'unresolvable', 'pattern']) {
    assert.ok(ROWS.some(([, , e]) => e.split(' ')[0] === kind), kind);
  }
});

test('a refusal says what and where', async () => {
  const fs = () => fakeFs(TREE);
  const rules: PathRules = { root: '/p', confine: true, pattern: /\.md$/ };
  const out = await decidePath('outdir\\secret.md', rules, fs());
  assert.ok(!out.allowed);
  assert.match(out.problem, /leads to \/o\/secret\.md, outside the project root \/p/);
  const alias = await decidePath('alias.md', rules, fs());
  assert.ok(!alias.allowed);
  assert.deepEqual([alias.name, alias.target], ['alias.md', 'src.ts']);
  assert.match(alias.problem, /"alias\.md" leads to "src\.ts", which does not match \\\.md\$/);
  const loop = await decidePath('loop1', rules, fs());
  assert.ok(!loop.allowed);
  assert.match(loop.problem, new RegExp(`more than ${MAX_LINK_HOPS} symbolic links`));
  const file = await decidePath('docs/a.md/x', rules, fs());
  assert.ok(!file.allowed);
  assert.match(file.problem, /\/p\/docs\/a\.md is a file, not a folder/);
  const locked = await decidePath('locked/x', rules, fs());
  assert.ok(!locked.allowed);
  assert.match(locked.problem, /\/p\/locked cannot be examined \(EACCES\)/);
});

test('sees a link swapped between two decisions', async () => {
  const fs = fakeFs(TREE);
  const rules: PathRules = { root: '/p', confine: true, pattern: /\.md$/ };
  fs.set('/p/swap.md', '-> docs/a.md');
  assert.equal(summary(await decidePath('swap.md', rules, fs)), 'ok swap.md → docs/a.md');
  fs.set('/p/swap.md', '-> /o/secret.md');
  assert.equal(summary(await decidePath('swap.md', rules, fs)), 'outside');
  fs.set('/p/swap.md', '-> src.ts');
  assert.equal(summary(await decidePath('swap.md', rules, fs)), 'pattern');
});

test('a link chain longer than the kernel allows is refused; one just under it is followed', async () => {
  const tree: Record<string, string> = { '/p': 'dir', '/p/end.md': 'file' };
  for (let i = 0; i < MAX_LINK_HOPS + 1; i++) tree[`/p/l${i}`] = `-> ${i === MAX_LINK_HOPS ? 'end.md' : `l${i + 1}`}`;
  const rules: PathRules = { root: '/p', confine: true, pattern: null };
  assert.equal(summary(await decidePath(`l${1}`, rules, fakeFs(tree))), 'ok l1 → end.md');
  assert.equal(summary(await decidePath('l0', rules, fakeFs(tree))), 'unresolvable');
});

test('no file system is consulted when nothing needs it (confinement off, no pattern)', async () => {
  const fs = fakeFs(TREE);
  const d = await decidePath('outdir/secret.md', { root: '/p', confine: false, pattern: null }, fs);
  assert.equal(summary(d), 'ok outdir/secret.md → outdir/secret.md');
  assert.deepEqual(fs.asked, []);
});

test('one decision asks about each path once, and only about the root and the path', async () => {
  const fs = fakeFs(TREE);
  await decidePath('docs/new/b.md', { root: '/p', confine: true, pattern: /\.md$/ }, onceEach(fs));
  // Every prefix is asked for at once (one round trip), even past the first missing folder.
  assert.deepEqual([...fs.asked].sort(), ['/p', '/p/docs', '/p/docs/new', '/p/docs/new/b.md']);
  const raw = fakeFs(TREE);
  await decidePath('indir/../docs/a.md', { root: '/p', confine: true, pattern: null }, onceEach(raw));
  assert.equal(new Set(raw.asked).size, raw.asked.length, `asked twice: ${raw.asked.join(', ')}`);
});

test('walk treats what follows a missing folder as text, and comes back to real ground on `..`', async () => {
  const fs = fakeFs(TREE);
  assert.deepEqual(await walk([], ['p', 'new', 'x', '..', '..', 'outdir', 'secret.md'], fs), { ok: true, parts: ['o', 'secret.md'], exists: true });
  assert.deepEqual(await walk([], ['p', 'new', '..', 'alias.md'], fs), { ok: true, parts: ['p', 'src.ts'], exists: true });
  assert.deepEqual(await walk([], ['..', '..', 'p'], fs), { ok: true, parts: ['p'], exists: true });
});

test('text helpers: parse, lexical and relative', () => {
  assert.deepEqual(parseClientPath('a\\b//c/'), { ok: true, path: { absolute: false, parts: ['a', 'b', 'c', '.'] } });
  assert.deepEqual(parseClientPath('\\\\server\\share\\x'), { ok: true, path: { absolute: true, parts: ['server', 'share', 'x'] } });
  assert.deepEqual(lexical(['p'], ['..', '..', 'x']), { parts: ['x'], above: 2 });
  assert.deepEqual(lexical(['p'], ['a', '..', '.', 'b']), { parts: ['p', 'b'], above: 0 });
  assert.equal(relativeText(['p'], ['o', 'x']), '../o/x');
  assert.equal(relativeText(['p'], ['p']), '.');
});
