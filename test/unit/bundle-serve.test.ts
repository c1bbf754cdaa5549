import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tree } from './file-tree.js';
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { BundleError } from '../../src/build/bundle-hook.mjs';
// @ts-expect-error: a build script in plain JavaScript, without type declarations
import { writeServeBundle } from '../../src/build/bundle-serve.mjs';


test('the serve bundle puts the entry\'s static imports first, reads the rest on first use, and keeps one instance of each module', async (t) => {
  const dir = tree(t, {
    'log.js': "export const seen = [];\nexport function note(x) { seen.push(x); }\n",
    'err.js': "import { note } from './log.js';\nnote('err');\nexport class Oops extends Error {}\n",
    // Lazy both ways: late.js imports the entry's own module statically, which a lazy edge allows.
    'late/late.js': [
      "import { Oops } from '../err.js';",
      "import { note } from '../log.js';",
      "import { readFileSync } from 'node:fs';",
      "note('late');",
      'export const here = import.meta.url;',
      'export function boom() { throw new Oops(String(typeof readFileSync)); }',
      "export const back = () => import('../entry.js');",
      '',
    ].join('\n'),
    'entry.js': [
      "import { seen, note } from './log.js';",
      "import { Oops } from './err.js';",
      "note('entry');",
      "export const later = () => import('./late/late.js');",
      'export async function run() {',
      '  const m = await later();',
      '  const again = await m.back();',
      '  try { m.boom(); } catch (e) { return { caught: e instanceof Oops, message: e.message, seen: [...seen], here: m.here, sameEntry: again.run === run }; }',
      '}',
      '',
    ].join('\n'),
  });
  const counts = await writeServeBundle(join(dir, 'entry.js'), dir, 'start.cjs', 'rest.cjs');
  assert.deepEqual(counts, { modules: 4, start: 3 });
  assert.doesNotMatch(readFileSync(join(dir, 'start.cjs'), 'utf8'), /late\.js", \(\) =>/, 'the lazily loaded module is not in the first file');
  assert.match(readFileSync(join(dir, 'rest.cjs'), 'utf8'), /late\/late\.js/);
  const bundled = createRequire(import.meta.url)(join(dir, 'start.cjs')) as { run(): Promise<unknown> };
  const direct = await import(pathToFileURL(join(dir, 'entry.js')).href);
  const ours = await bundled.run();
  assert.deepEqual(ours, await direct.run());
  assert.deepEqual(ours, {
    caught: true, message: 'function', seen: ['err', 'entry', 'late'], sameEntry: true,
    here: pathToFileURL(join(dir, 'late', 'late.js')).href,
  });
});

test('the serve bundle refuses a cycle of static imports', async (t) => {
  const dir = tree(t, { 'entry.js': "import { b } from './b.js';\nexport const a = 1;\n", 'b.js': "import { a } from './entry.js';\nexport const b = 2;\n" });
  await assert.rejects(writeServeBundle(join(dir, 'entry.js'), dir, 'start.cjs', 'rest.cjs'), (err: unknown) => err instanceof BundleError && /import cycle: entry\.js → b\.js → entry\.js/.test((err as Error).message));
});

test('the built server starts from its bundle: dist/serve.cjs and dist/serve-rest.cjs exist beside dist/main.cjs', () => {
  const dist = join(import.meta.dirname, '..', '..', 'dist');
  for (const name of ['serve.cjs', 'serve-rest.cjs']) assert.ok(existsSync(join(dist, name)), `${name} is built (npm run build)`);
  assert.match(readFileSync(join(dist, 'main.cjs'), 'utf8'), /serve\.cjs/);
});

test('dist/main.js, the entry by its old path, still starts the server: it only loads the bin', () => {
  const dist = join(import.meta.dirname, '..', '..', 'dist');
  const version = (JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const r = spawnSync(process.execPath, [join(dist, 'main.js'), '--version'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, `${version}\n`);
});
