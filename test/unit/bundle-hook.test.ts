import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tree } from './file-tree.js';
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { BundleError, writeBundle } from '../../src/build/bundle-hook.mjs';


test('the bundle behaves as its modules: order of evaluation, one instance each, lazy imports, renames and re-exports', async (t) => {
  const dir = tree(t, {
    'log.js': "export const seen = [];\nexport function note(x) { seen.push(x); }\n",
    'a/err.js': "import { note } from '../log.js';\nnote('err');\nexport class Oops extends Error {}\n",
    'a/lazy.js': "import { Oops } from './err.js';\nimport { note } from '../log.js';\nnote('lazy');\nexport function boom() { throw new Oops('x'); }\n",
    'a/mid.js': "import { note as mark } from '../log.js';\nimport * as err from './err.js';\nmark('mid');\nexport { Oops } from './err.js';\nexport const Err = err.Oops;\n",
    'entry.js': [
      "import { seen, note } from './log.js';",
      "import { Err, Oops } from './a/mid.js';",
      "note('entry');",
      'export async function run() {',
      "  const { boom } = await import('./a/lazy.js');",
      '  try { boom(); } catch (e) { return { same: Err === Oops, caught: e instanceof Oops, seen: [...seen] }; }',
      '}',
      '',
    ].join('\n'),
  });
  const out = join(dir, 'bundle.cjs');
  assert.equal(await writeBundle(join(dir, 'entry.js'), ['run'], out), 5);
  const text = readFileSync(out, 'utf8');
  assert.doesNotMatch(text, /from '\.\//);
  const bundled = await import(pathToFileURL(out).href);
  const direct = await import(pathToFileURL(join(dir, 'entry.js')).href);
  const ours = await bundled.run();
  assert.deepEqual(ours, { same: true, caught: true, seen: ['err', 'mid', 'entry', 'lazy'] });
  assert.deepEqual(ours, await direct.run());
});

test('the bundler refuses what it cannot carry over faithfully', async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ 'entry.js': "import { b } from './b.js';\nexport const a = 1;\n", 'b.js': "import { a } from './entry.js';\nexport const b = 2;\n" }, /import cycle: entry\.js → b\.js → entry\.js/],
    [{ 'entry.js': 'export default 1;\n' }, /unsupported export/],
    [{ 'entry.js': "import x from './b.js';\nexport const a = x;\n", 'b.js': 'export const b = 1;\n' }, /unsupported import/],
    [{ 'entry.js': 'export const here = import.meta.url;\n' }, /import\.meta/],
    [{ 'entry.js': 'export const a = 1, b = 2;\n' }, /one export per declaration/],
    [{ 'entry.js': "import { x } from 'some-package';\nexport const a = x;\n" }, /package import/],
  ];
  for (const [files, why] of cases) {
    const dir = tree(t, files);
    await assert.rejects(writeBundle(join(dir, 'entry.js'), ['a'], join(dir, 'bundle.cjs')), (err: unknown) => err instanceof BundleError && why.test((err as Error).message), String(why));
  }
});

test('compact drops comments and indentation but keeps every blank inside strings, templates and regexes', async () => {
  // @ts-expect-error: a build script in plain JavaScript, without type declarations
  const { compact } = await import('../../src/build/bundle-hook.mjs');
  const source = [
    '// a comment',
    'function f(x) {',
    '    /* another */',
    '    const t = `line one',
    '    kept indented ${x}',
    '      and this`;',
    "    const s = 'a  b';",
    '    const r = /  +x/;',
    '    return [t, s, r.source];',
    '}',
    'module.exports = f;',
    '',
  ].join('\n');
  const text: string = compact(source);
  assert.doesNotMatch(text, /comment|another/);
  assert.doesNotMatch(text, /^ +(?:const|return)/m);
  const load = (code: string): (x: string) => unknown => {
    const mod = { exports: {} as unknown };
    new Function('module', code)(mod);
    return mod.exports as (x: string) => unknown;
  };
  assert.deepEqual(load(text)('X'), load(source)('X'));
  assert.deepEqual(load(text)('X'), ['line one\n    kept indented X\n      and this', 'a  b', '  +x']);
});

test('a built-in can be stood in for by a module that gives every name imported from it, and by nothing less', async (t) => {
  const files = {
    'fake-fs.js': "export const stat = () => 'ours';\n",
    'entry.js': "import { stat } from 'node:fs/promises';\nexport const a = () => stat();\n",
  };
  const dir = tree(t, files);
  const out = join(dir, 'bundle.cjs');
  await writeBundle(join(dir, 'entry.js'), ['a'], out, undefined, { 'node:fs/promises': join(dir, 'fake-fs.js') });
  assert.equal((await import(pathToFileURL(out).href)).a(), 'ours');
  assert.doesNotMatch(readFileSync(out, 'utf8'), /require\(['"]node:fs\/promises/);
  const cases: [Record<string, string>, RegExp][] = [
    [{ ...files, 'entry.js': "import { stat, open } from 'node:fs/promises';\nexport const a = [stat, open];\n" }, /entry\.js imports open from node:fs\/promises, which fake-fs\.js \(standing in for it\) does not give/],
    [{ ...files, 'entry.js': "import * as fsp from 'node:fs/promises';\nexport const a = fsp.stat;\n" }, /import \* from node:fs\/promises/],
    [{ ...files, 'entry.js': "export const a = () => import('node:fs/promises');\n" }, /imported lazily/],
  ];
  for (const [tree_, why] of cases) {
    const d = tree(t, tree_);
    await assert.rejects(writeBundle(join(d, 'entry.js'), ['a'], join(d, 'bundle.cjs'), undefined, { 'node:fs/promises': join(d, 'fake-fs.js') }),
      (err: unknown) => err instanceof BundleError && why.test((err as Error).message), String(why));
  }
});

test('asciiOnly writes characters past ASCII as escapes that mean the same, and refuses where an escape would not', async () => {
  // @ts-expect-error: a build script in plain JavaScript, without type declarations
  const { asciiOnly } = await import('../../src/build/bundle-hook.mjs');
  const source = 'module.exports = [`${1}\u2026`, "caf\u00e9", /[\u2192]/.test("\u2192"), "\u{1F600}".length, `a\u2028b`];\n';
  const text: string = asciiOnly(source);
  assert.match(text, /^[\x00-\x7f]*$/);
  const load = (code: string): unknown => { const mod = { exports: {} as unknown }; new Function('module', code)(mod); return mod.exports; };
  assert.deepEqual(load(text), load(source));
  assert.throws(() => asciiOnly('String.raw`\u2026`;\n'), (err: unknown) => err instanceof BundleError && /tagged template/.test((err as Error).message));
  assert.throws(() => asciiOnly('"\\\u2026";\n'), (err: unknown) => err instanceof BundleError && /follows a backslash/.test((err as Error).message));
});

test('commentSafe escapes a comment end inside strings and templates, and refuses one anywhere else', async () => {
  // @ts-expect-error: a build script in plain JavaScript, without type declarations
  const { commentSafe } = await import('../../src/build/bundle-hook.mjs');
  const end = '*' + '/';
  const source = `module.exports = ["src/**${'/'}x.md", \`a${end}b\${1}c${end}\`, 'plain'];\n`;
  const text: string = commentSafe(source);
  assert.ok(!text.includes(end), text);
  const load = (code: string): unknown => { const mod = { exports: {} as unknown }; new Function('module', code)(mod); return mod.exports; };
  assert.deepEqual(load(text), load(source));
  for (const bad of [`const a = 2 ${end} 1;\n`, `const r = /ab${end}g;\n`, `const r = String.raw\`a${end}b\`;\n`]) {
    assert.throws(() => commentSafe(bad), (err: unknown) => err instanceof BundleError && /outside a string/.test((err as Error).message), bad);
  }
});
