// The import map that lets a browser load an npm package's ES modules straight from a node_modules
// folder: every bare specifier reachable from the entry, resolved by the packages' own `exports`
// with the browser's conditions. Reads files; serves nothing.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const CONDITIONS = ['browser', 'import', 'default'];

/** Specifiers a module imports: `from "x"`, `import "x"`, `import("x")`, minified or not. */
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

/** The file an `exports` entry leads to under our conditions, or null. */
function pick(entry: unknown): string | null {
  if (typeof entry === 'string') return entry;
  if (entry === null || typeof entry !== 'object') return null;
  for (const [key, value] of Object.entries(entry)) {
    if (CONDITIONS.includes(key)) {
      const found = pick(value);
      if (found !== null) return found;
    }
  }
  return null;
}

const packageName = (spec: string): string => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

/** A bare specifier (`pkg`, `pkg/sub`, `@scope/pkg/sub`) as a file under `nodeModules`. */
export function resolveBare(spec: string, nodeModules: string): string {
  const name = packageName(spec);
  const sub = `.${spec.slice(name.length)}` || '.';
  const dir = join(nodeModules, name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { exports?: unknown; module?: string; main?: string };
  const exportsField = pkg.exports;
  let target: string | null = null;
  if (typeof exportsField === 'object' && exportsField !== null && Object.keys(exportsField).some((k) => k.startsWith('.'))) {
    target = pick((exportsField as Record<string, unknown>)[sub === '.' ? '.' : sub]);
  } else if (sub === '.') {
    target = pick(exportsField) ?? pkg.module ?? pkg.main ?? 'index.js';
  }
  if (target === null) throw new Error(`${spec}: ${name}'s exports give no file for ${sub} under ${CONDITIONS.join(', ')}`);
  return resolve(dir, target);
}

/**
 * The map for `entry` (a file under `nodeModules`): bare specifier → URL path under `base`, for
 * every module the entry reaches (relative imports followed, so each file's own imports count).
 */
export function importMap(entry: string, nodeModules: string, base: string): Record<string, string> {
  const imports: Record<string, string> = {};
  const seen = new Set<string>();
  const url = (file: string): string => `${base}/${relative(nodeModules, file).split('\\').join('/')}`;
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(SPECIFIERS)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) { visit(resolve(dirname(file), spec)); continue; }
      if (spec.startsWith('node:') || /^[a-z]+:/.test(spec)) continue;
      // A name in a comment or a string (the scan reads text, not syntax) is no package here: left
      // out, and were it a real import the browser would fail on it loudly.
      if (!(spec in imports) && existsSync(join(nodeModules, packageName(spec), 'package.json'))) {
        const target = resolveBare(spec, nodeModules);
        imports[spec] = url(target);
        visit(target);
      }
    }
  };
  visit(entry);
  return imports;
}
