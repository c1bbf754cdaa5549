// The layering of src/: src/rpc/ (JSON-RPC shapes, errors, dispatch types) depends on no feature
// folder, and no module imports itself back through others (no import cycles, static or type-only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Static imports and re-exports (type-only included; dynamic import() loads lazily, so it is no cycle). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'";]*?\bfrom\s+'(\.[^']+)'/gm)) {
    out.push(resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
  }
  return out;
}

const graph = new Map(sources(SRC).map((f) => [f, importsOf(f)]));
const rel = (f: string): string => relative(SRC, f);

test('src/rpc/ imports nothing from the protocol, pipeline or feature folders', () => {
  for (const [file, deps] of graph) {
    if (!rel(file).startsWith('rpc/')) continue;
    for (const dep of deps) {
      assert.ok(rel(dep).startsWith('rpc/') || rel(dep) === 'log.ts' || rel(dep) === 'bounds.ts', `${rel(file)} imports ${rel(dep)}`);
    }
  }
  // The bounds table may be read from anywhere because it reads nothing itself.
  assert.deepEqual(graph.get(resolve(SRC, 'bounds.ts')), []);
});

test('the source tree has no import cycle', () => {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') assert.fail(`import cycle: ${[...path.slice(path.indexOf(file)), file].map(rel).join(' -> ')}`);
    state.set(file, 'open');
    path.push(file);
    for (const dep of graph.get(file) ?? []) visit(dep);
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file);
});
