// Where a TypeScript file's compiled JavaScript is kept. The name is a hash of the compiler's
// version, this scheme's version, the file's path (its source map names it) and its text, so an
// entry is never stale: an edit is a new name. Shared by test/run.mjs, which compiles every file
// once before the run, and the loader hooks, which only read (and compile what was not there).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const SCHEME = 1;
const compilerVersion = JSON.parse(readFileSync(require.resolve('typescript/package.json'), 'utf8')).version;

/** The folder of compiled files: ROO_TEST_TS_CACHE (test/run.mjs sets it), else one per user in the temp folder. */
export function cacheDir() {
  return process.env.ROO_TEST_TS_CACHE || join(tmpdir(), `rms-ts-${process.getuid?.() ?? 'user'}`);
}

export function entryPath(dir, file, source) {
  const h = createHash('sha1').update(`${compilerVersion}\0${SCHEME}\0${file}\0`).update(source).digest('hex');
  return join(dir, `${h}.js`);
}

/** The compiled text of FILE (whose text is SOURCE), from the cache or compiled now and kept. */
export function compiledText(dir, file, source) {
  const at = entryPath(dir, file, source);
  try { return readFileSync(at, 'utf8'); } catch { /* not compiled yet */ }
  const text = compile(file, source);
  keep(dir, at, text);
  return text;
}

export function keep(dir, at, text) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Written aside and renamed, so that a process reading the entry meanwhile sees all or nothing.
  const aside = `${at}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(aside, text);
  renameSync(aside, at);
}

let ts;
/** Types removed, one file alone (what tsx did), with an inline source map so stacks name the .ts lines. */
export function compile(file, source) {
  ts ??= require('typescript');
  const out = ts.transpileModule(source, {
    fileName: file,
    reportDiagnostics: false,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      isolatedModules: true,
      inlineSourceMap: true,
      inlineSources: false,
      esModuleInterop: true,
    },
  });
  return out.outputText;
}

/**
 * Compiles what the cache lacks of the TypeScript files ENTRIES import, directly or not (relative
 * imports, `./x.js` naming `./x.ts`), in this one process before the tests start: each test process
 * then only reads. A file this scan misses is compiled by the first process that loads it.
 */
export function compileAll(dir, entries) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    let source;
    try { source = readFileSync(file, 'utf8'); } catch { return; }
    if (/\.m?ts$/.test(file) && !file.endsWith('.d.ts')) {
      const at = entryPath(dir, file, source);
      if (!existsSync(at)) keep(dir, at, compile(file, source));
    }
    for (const m of source.matchAll(IMPORTED)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      const ts = target.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts');
      visit(ts !== target && existsSync(ts) ? ts : target);
    }
  };
  for (const e of entries) visit(resolve(e));
}

/** `from '…'`, `import '…'` and `import('…')` with a literal specifier. */
const IMPORTED = /(?:\bfrom\s*|\bimport\s*)['"]([^'"\n]+)['"]|\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;
