// Where a TypeScript file's compiled JavaScript is kept. The name is a hash of the compiler's
// version, this scheme's version, the file's path (the output names it) and its text, so an entry
// is never stale: an edit is a new name. Shared by test/run.mjs, which compiles what the test files
// import before the run, and the loader hooks (test/ts/hooks.mjs, for running a file by hand).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const SCHEME = 2;
const compilerVersion = JSON.parse(readFileSync(require.resolve('typescript/package.json'), 'utf8')).version;

/** The folder of compiled files: ROO_TEST_TS_CACHE (test/run.mjs sets it), else one per user in the temp folder. */
export function cacheDir() {
  return process.env.ROO_TEST_TS_CACHE || join(tmpdir(), `rms-ts-${process.getuid?.() ?? 'user'}`);
}

function entryPath(dir, file, source) {
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

function keep(dir, at, text) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Written aside and renamed, so that a process reading the entry meanwhile sees all or nothing.
  const aside = `${at}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(aside, text);
  renameSync(aside, at);
}

let ts;
/**
 * Types removed, one file alone (what tsx did), with an inline source map naming the .ts file.
 * The output runs from anywhere (test/run.mjs runs it from a folder of its own, without loader
 * hooks): `import.meta.url`, `.dirname` and `.filename` become the .ts file's own, and a relative
 * import of anything but another TypeScript file becomes that file's absolute URL.
 */
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
      sourceRoot: `${pathToFileURL(dirname(file)).href}/`,
      esModuleInterop: true,
    },
    transformers: { before: [placeIndependent(file)] },
  });
  return out.outputText;
}

/** The specifier a compiled file imports `spec` by: a TypeScript file's stays (it is compiled beside it), anything else by its absolute URL. */
function specifierFor(file, spec) {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return spec;
  const target = resolve(dirname(file), spec);
  for (const [js, tsExt] of [['.js', '.ts'], ['.mjs', '.mts']]) {
    if (target.endsWith(js) && !existsSync(target) && existsSync(target.slice(0, -js.length) + tsExt)) return spec;
  }
  return pathToFileURL(target).href;
}

function placeIndependent(file) {
  return (context) => (sourceFile) => {
    const f = context.factory;
    const literal = (node) => ts.isStringLiteral(node) ? f.createStringLiteral(specifierFor(file, node.text)) : node;
    const visit = (node) => {
      if (ts.isPropertyAccessExpression(node) && ts.isMetaProperty(node.expression) && node.expression.keywordToken === ts.SyntaxKind.ImportKeyword) {
        const own = { url: pathToFileURL(file).href, dirname: dirname(file), filename: file }[node.name.text];
        if (own !== undefined) return f.createStringLiteral(own);
      }
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        return f.updateImportDeclaration(node, node.modifiers, node.importClause, literal(node.moduleSpecifier), node.attributes);
      }
      if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        return f.updateExportDeclaration(node, node.modifiers, node.isTypeOnly, node.exportClause, literal(node.moduleSpecifier), node.attributes);
      }
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
        return f.updateCallExpression(node, node.expression, node.typeArguments, [literal(node.arguments[0]), ...node.arguments.slice(1).map((a) => ts.visitNode(a, visit))]);
      }
      return ts.visitEachChild(node, visit, context);
    };
    return ts.visitNode(sourceFile, visit);
  };
}

/**
 * The compiled text of ENTRIES and of every TypeScript file they import, directly or not (relative
 * imports, `./x.js` naming `./x.ts`), by file, compiling what the cache lacks: test/run.mjs calls it
 * once before the tests start.
 */
export function compileAll(dir, entries) {
  const seen = new Set();
  const compiled = new Map();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    let source;
    try { source = readFileSync(file, 'utf8'); } catch { return; }
    if (/\.m?ts$/.test(file) && !file.endsWith('.d.ts')) compiled.set(file, compiledText(dir, file, source));
    for (const m of source.matchAll(IMPORTED)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      const tsFile = target.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts');
      visit(tsFile !== target && existsSync(tsFile) ? tsFile : target);
    }
  };
  for (const e of entries) visit(resolve(e));
  return compiled;
}

/** `from '…'`, `import '…'` and `import('…')` with a literal specifier. */
const IMPORTED = /(?:\bfrom\s*|\bimport\s*)['"]([^'"\n]+)['"]|\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;
