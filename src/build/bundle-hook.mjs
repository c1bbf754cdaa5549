// Build step after tsc: joins the command hook's modules (dist/cli/hook.js and everything it imports,
// statically or lazily) into one CommonJS file, dist/roo-modes-check.cjs. It never changes what the code does.
//
// Why: the hook runs before every tool call it guards, and on Node 20 each ES module costs its own
// resolve, read and compile (about half a millisecond of CPU each; the hook's graph has 27 before
// the YAML reader's dozen). Node 22's compile cache is not available there. One file is read and
// compiled once, and as CommonJS, required by the CommonJS entry (main.cts), so Node's ES module
// loader is never started for the hook. Each module becomes a function run on first use (as ES modules are, in the same
// order for a graph without cycles); lazy `import()` of a bundled module becomes that function too,
// so no module ever exists twice. The build fails on any construct this script does not know, and
// checks every module's export names against the module itself.
//
// The same file is the self-contained check that export writes into projects (src/export/vendored.ts):
// run by `node` it is the hook itself (src/cli/check-main.ts), so it is also kept small (compact below),
// ASCII, and laid out for V8's code cache: a loader (src/hook/check-loader.ts, bundled the same way),
// then the code inside one block comment (checkFileCode). In that file alone
// node:fs/promises is src/hook/sync-fs-promises.ts (`instead`): the check answers once and exits.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const DIST = resolve(fileURLToPath(new URL('../../dist/', import.meta.url)));

const STATIC_IMPORT = /^import (?:\{([^}]*)\}|\* as (\w+)) from '([^']+)';$/;
const DYNAMIC_IMPORT = /\bimport\((['"])([^'"]+)\1\)/g;
const EXPORT_DECL = /^export (?:async function\*? |function\*? |class |const |let |var )(\w+)/;
const EXPORT_LIST = /^export \{([^}]*)\};$/;
const EXPORT_FROM = /^export \{([^}]*)\} from '([^']+)';$/;

export class BundleError extends Error {}

/** `a, b as c` → [['a', 'a'], ['b', 'c']] (imported name, local name). */
function names(list) {
  return list.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const m = /^(\w+)(?:\s+as\s+(\w+))?$/.exec(s);
    if (!m) throw new BundleError(`cannot read the name list "${list}"`);
    return [m[1], m[2] ?? m[1]];
  });
}

/**
 * Reads one module: its body with imports and export keywords removed, and what it needs and gives.
 * `metaUrl`, when given, returns the expression that stands for `import.meta.url` in this module;
 * without it import.meta is refused.
 */
export function readModule(file, metaUrl = null) {
  const lines = readFileSync(file, 'utf8').split('\n').map((line) => (metaUrl === null ? line : line.replace(/\bimport\.meta\.url\b/g, metaUrl(file))));
  const body = [];
  const imports = []; // { from, names } | { from, namespace }
  const exports = []; // [local, exported]
  const reexports = []; // { from, names }
  const lazy = new Set();
  for (const line of lines) {
    if (/\bimport\.meta\b/.test(line)) throw new BundleError(`${file}: import.meta would name the bundle, not this module`);
    // Any line may import lazily, an exported declaration's too (`export const load = () => import(…)`).
    for (const m of line.matchAll(DYNAMIC_IMPORT)) lazy.add(m[2]);
    if (line.startsWith('import ')) {
      const m = STATIC_IMPORT.exec(line);
      if (!m) throw new BundleError(`${file}: unsupported import: ${line}`);
      imports.push(m[2] ? { from: m[3], namespace: m[2] } : { from: m[3], names: names(m[1]) });
      continue;
    }
    if (line.startsWith('export ')) {
      let m;
      if (line === 'export {};') continue;
      if ((m = EXPORT_FROM.exec(line))) { reexports.push({ from: m[2], names: names(m[1]) }); continue; }
      if ((m = EXPORT_LIST.exec(line))) { for (const [local, exported] of names(m[1])) exports.push([local, exported]); continue; }
      if ((m = EXPORT_DECL.exec(line))) {
        if (/^export (?:const|let|var) \w+\s*=.*,\s*\w+\s*=/.test(line)) throw new BundleError(`${file}: one export per declaration, please: ${line}`);
        exports.push([m[1], m[1]]);
        body.push(line.slice('export '.length));
        continue;
      }
      throw new BundleError(`${file}: unsupported export: ${line}`);
    }
    body.push(line);
  }
  return { file, body, imports, exports, reexports, lazy: [...lazy] };
}

/**
 * A module's code as the body of a function that runs it once and returns its exports: imports become
 * `target(spec)` (the expression giving that module's exports), lazy imports a promise of the same.
 */
export function moduleCode(mod, target) {
  const head = mod.imports.map((i) => (i.namespace
    ? `const ${i.namespace} = ${target(i.from)};`
    : `const { ${i.names.map(([imported, local]) => (imported === local ? local : `${imported}: ${local}`)).join(', ')} } = ${target(i.from)};`));
  const body = mod.body.join('\n').replace(DYNAMIC_IMPORT, (whole, _q, spec) => (spec.startsWith('.') ? `Promise.resolve().then(() => ${target(spec)})` : whole));
  const given = [
    ...mod.exports.map(([local, exported]) => (local === exported ? local : `${exported}: ${local}`)),
    ...mod.reexports.flatMap((r) => r.names.map(([imported, exported]) => `${exported}: ${target(r.from)}.${imported}`)),
  ];
  return `${head.join('\n')}\n${body}\nreturn { ${given.join(', ')} };`;
}

/** Every module reachable from the entry, each once, keyed by absolute path; `instead` maps a built-in to a module that stands for it. */
function collect(entry, root, instead) {
  const modules = new Map();
  const visit = (file, stack) => {
    if (stack.includes(file)) throw new BundleError(`import cycle: ${[...stack, file].map((f) => relative(root, f)).join(' → ')}`);
    if (modules.has(file)) return;
    const mod = readModule(file);
    modules.set(file, mod);
    const deps = [...mod.imports.map((i) => i.from), ...mod.reexports.map((r) => r.from), ...mod.lazy];
    for (const spec of deps) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec), [...stack, file]);
      else if (instead[spec] !== undefined) visit(instead[spec], [...stack, file]);
    }
  };
  visit(entry, []);
  return modules;
}

/**
 * The bundle's text for `entry` (whose exports `names` it re-exports, or which `tail` ends instead),
 * and the modules it holds. `instead` maps a built-in ('node:…') to the file of a module that stands
 * for it here: it must give every name that is imported from the built-in.
 */
export function bundle(entry, names, root = dirname(entry), { instead = {}, tail } = {}) {
  const modules = collect(entry, root, instead);
  for (const [spec, file] of Object.entries(instead)) {
    const gives = new Set(modules.get(file)?.exports.map(([, e]) => e) ?? []);
    for (const [from, mod] of modules) {
      if (mod.lazy.includes(spec)) throw new BundleError(`${relative(root, from)}: ${spec} is imported lazily, and stands in for it only statically`);
      for (const i of mod.imports.filter((im) => im.from === spec)) {
        if (i.namespace !== undefined) throw new BundleError(`${relative(root, from)}: import * from ${spec}, which ${relative(root, file)} stands in for: name what is used`);
        for (const [name] of i.names) if (!gives.has(name)) throw new BundleError(`${relative(root, from)} imports ${name} from ${spec}, which ${relative(root, file)} (standing in for it) does not give`);
      }
    }
  }
  const id = new Map([...modules.keys()].map((f, i) => [f, `__m${i}`]));
  const builtins = new Map(); // 'node:fs' → '__node_fs'
  const builtin = (spec) => {
    if (!spec.startsWith('node:')) throw new BundleError(`a package import (${spec}) cannot be bundled here`);
    if (!builtins.has(spec)) builtins.set(spec, `__${spec.replace(/\W/g, '_')}`);
    return builtins.get(spec);
  };
  const parts = [];
  for (const [file, mod] of modules) {
    const target = (spec) => (spec.startsWith('.') ? `${id.get(resolve(dirname(file), spec))}()` : instead[spec] !== undefined ? `${id.get(instead[spec])}()` : builtin(spec));
    parts.push(`// ${relative(root, file)}\nconst ${id.get(file)} = once(() => {\n${moduleCode(mod, target)}\n});`);
  }
  const header = [
    '// Generated by src/build/bundle-hook.mjs from the modules under dist/ (see there why); do not edit.',
    "'use strict';",
    ...[...builtins].map(([spec, name]) => `const ${name} = require('${spec}');`),
    'const once = (run) => { let done = null; return () => (done ??= run()); };',
  ];
  const end = tail ?? `module.exports = { ${names.join(', ')} };\n`;
  const text = `${header.join('\n')}\n${parts.join('\n')}\nconst { ${names.join(', ')} } = ${id.get(entry)}();\n${end}`;
  return { text, modules };
}

/**
 * Writes the bundle to `out`, after checking that each module gives exactly the names the module
 * itself exports; `finish` may turn the text into the file's (the check file's code and header).
 */
export async function writeBundle(entry, names, out, finish = (text) => text, instead = {}) {
  const { text, modules } = bundle(entry, names, dirname(out), { instead });
  for (const [file, mod] of modules) {
    const real = Object.keys(await import(pathToFileURL(file).href)).sort();
    const ours = [...mod.exports.map(([, e]) => e), ...mod.reexports.flatMap((r) => r.names.map(([, e]) => e))].sort();
    if (real.join() !== ours.join()) throw new BundleError(`${file}: exports ${real.join(', ')}, the bundle read ${ours.join(', ')}`);
  }
  writeFileSync(out, finish(text));
  const bundled = createRequire(import.meta.url)(out);
  for (const name of names) if (bundled[name] === undefined) throw new BundleError(`the bundle gives no ${name}`);
  return modules.size;
}

/**
 * The same program without comments and indentation: the check is copied into every project that
 * enforces a mode, and read and compiled before every call it guards. TypeScript's printer drops the
 * comments; then each line loses its leading blanks unless it starts inside a string, a template or
 * a regex literal (found by parsing the printed text again), where they are part of a value.
 */
export function compact(text) {
  const source = ts.createSourceFile('check.cjs', text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.JS);
  const printed = ts.createPrinter({ removeComments: true }).printFile(source);
  const again = ts.createSourceFile('check.cjs', printed, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const literals = [];
  const visit = (node) => {
    if (ts.isTemplateLiteral(node) || ts.isStringLiteral(node) || node.kind === ts.SyntaxKind.RegularExpressionLiteral) literals.push([node.getStart(again), node.end]);
    else ts.forEachChild(node, visit);
  };
  visit(again);
  literals.sort((a, b) => a[0] - b[0]);
  const lines = [];
  let at = 0;
  let k = 0;
  for (const line of printed.split('\n')) {
    while (k < literals.length && literals[k][1] <= at) k++;
    const within = k < literals.length && literals[k][0] < at;
    lines.push(within ? line : line.trimStart());
    at += line.length + 1;
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/**
 * `code` with every character past ASCII written as its \uXXXX escape, which means the same everywhere
 * in a program without comments (string, template and regex literals, names) except in the raw text
 * of a tagged template: those are refused. The check's code is then one byte per character, which
 * Node reads and V8 scans faster.
 */
export function asciiOnly(code) {
  const source = ts.createSourceFile('code.cjs', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const visit = (node) => {
    if (ts.isTaggedTemplateExpression(node) && /[^\0-\x7f]/.test(node.template.getText(source))) {
      throw new BundleError(`a tagged template holds characters past ASCII, whose raw text an escape would change: ${node.getText(source).slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (/\\[^\0-\x7f]/.test(code)) throw new BundleError('a character past ASCII follows a backslash, which its escape would change');
  return code.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `code` with every star followed by a slash (which would end the comment that holds the check's
 * code) inside a string or an untagged template literal written with the slash escaped, which means
 * the same there; one anywhere else is refused.
 */
export function commentSafe(code) {
  const source = ts.createSourceFile('code.cjs', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const literals = [];
  const visit = (node) => {
    if (ts.isTaggedTemplateExpression(node)) { visit(node.tag); return; }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) literals.push([node.getStart(source), node.end]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  let out = '';
  let from = 0;
  for (let at = code.indexOf('*/'); at >= 0; at = code.indexOf('*/', at + 2)) {
    if (!literals.some(([start, end]) => start < at && at + 2 < end)) {
      throw new BundleError(`"*/" at line ${code.slice(0, at).split('\n').length} of the check's code, outside a string: it would end the comment that holds the code`);
    }
    out += `${code.slice(from, at)}*\\/`;
    from = at + 2;
  }
  return out + code.slice(from);
}

/**
 * The self-contained check's code (what follows the vendored header): "use strict", ROO_MODES_CODE_ID
 * (the sha256 of the check's code, which names the build whose parsed mode files the hook may reuse,
 * src/cli/hook.ts), the loader (`loader`, src/hook/check-loader.ts), and then the check's code
 * (`text`, made ASCII and comment-safe) in one block comment from a line `start` to the last line
 * `end`: Node's compile of the file skips it, and the loader takes it out and compiles it once,
 * through V8's code cache.
 */
export function checkFileCode(text, loader, start, end) {
  const code = commentSafe(asciiOnly(text));
  if (!code.endsWith('\n')) throw new BundleError("the check's code does not end with a newline");
  const first = loader.indexOf('\n');
  if (!/^["']use strict["'];$/.test(loader.slice(0, first))) throw new BundleError('the compact loader does not start with "use strict"');
  const note = `// The check's code follows, in one comment from the line "${start}" to the last line "${end}": Node's compile of this file skips it, and the code above compiles it once, through V8's code cache (in $XDG_CACHE_HOME or ~/.cache, roo-modes-server/hook-code).\n`;
  return `${loader.slice(0, first + 1)}const ROO_MODES_CODE_ID = "${createHash('sha256').update(code, 'utf8').digest('hex')}";\n${loader.slice(first + 1)}${note}${start}\n${code}${end}\n`;
}

/**
 * The bundles, each written with the vendored files' header (src/export/vendored.ts: name, version,
 * sha256) so that export copies them byte for byte: the self-contained check that export copies into
 * projects (dist/main.cjs requires it for `hook` too; compact), and the decision code that
 * `export --plugin` copies beside the OpenCode/Kilo plugin (src/cli/plugin-decision.ts), which Bun
 * runs inside the agent.
 */
const BUNDLES = [
  { kind: 'check', entry: join('cli', 'check-main.js'), names: ['runHook', 'readStdin', 'runCheckFile', 'writeOut', 'stdinIsTerminal'], compact: true, instead: { 'node:fs/promises': join(DIST, 'hook', 'sync-fs-promises.js') } },
  { kind: 'decision', entry: join('cli', 'plugin-decision.js'), names: ['createDecider'], compact: false, instead: {} },
];

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Built by tsc just before: the header has one owner, the module export reads it with.
  const { VENDORED, vendoredText } = await import(pathToFileURL(join(DIST, 'export', 'vendored.js')).href);
  const { BODY_START, BODY_END } = await import(pathToFileURL(join(DIST, 'hook', 'check-loader.js')).href);
  const loader = compact(bundle(join(DIST, 'hook', 'check-loader.js'), ['runCheckBody'], DIST, { tail: 'runCheckBody(__filename, module, require, ROO_MODES_CODE_ID);\n' }).text);
  const { version } = JSON.parse(readFileSync(join(DIST, '..', 'package.json'), 'utf8'));
  // Required by dist/main.cjs the check only gives its functions; run by node itself it is the hook.
  const run = 'if (require.main === module) runCheckFile(process.argv.slice(2));\n';
  for (const b of BUNDLES) {
    const out = join(DIST, VENDORED[b.kind].bundle);
    try {
      const finish = b.compact ? (text) => vendoredText(b.kind, version, checkFileCode(compact(text + run), loader, BODY_START, BODY_END)) : (text) => vendoredText(b.kind, version, text);
      const count = await writeBundle(join(DIST, b.entry), b.names, out, finish, b.instead);
      process.stderr.write(`bundle-hook: ${relative(process.cwd(), out)} from ${count} modules (${readFileSync(out).length} bytes)\n`);
    } catch (err) {
      process.stderr.write(`bundle-hook: ${VENDORED[b.kind].bundle}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  }
}
