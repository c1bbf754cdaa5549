// The layering of src/: every module imports only from its own layer and the layers below, in the
// order the source map in docs/development.md numbers them, and no module imports itself back through others
// (no import cycles, static or type-only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const SOURCE_MAP = fileURLToPath(new URL('../../docs/development.md', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    (e.isDirectory() ? sources(join(dir, e.name)) : /\.c?ts$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** Static imports and re-exports (type-only included; dynamic import() loads lazily, so it is no cycle). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'";]*?\bfrom\s+'(\.[^']+)'/gm)) {
    out.push(resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts')));
  }
  return out;
}

/** Every import, dynamic ones included: a lazy import of a higher layer is still an upward dependency. */
function allImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)'(\.[^']+)'/g)]
    .map((m) => resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts')));
}

const graph = new Map(sources(SRC).map((f) => [f, importsOf(f)]));
const rel = (f: string): string => relative(SRC, f);

/** The numbered source map of docs/development.md: "N src/a/ src/b.ts …" lines, a folder or a file each. */
function layers(): Map<string, number> {
  const doc = readFileSync(SOURCE_MAP, 'utf8');
  // Only the fenced block under its own heading counts, so a line elsewhere that happens to start "3 src/" cannot add a layer.
  const text = /^## Source map and layers\n[\s\S]*?^```\n([\s\S]*?)^```$/m.exec(doc)?.[1] ?? '';
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^ ?(\d{1,2}) ((?:src\/[\w.-]+\/? ?)+)/gm)) {
    for (const place of m[2]!.trim().split(' ')) out.set(place.replace(/^src\//, ''), Number(m[1]));
  }
  return out;
}

const LAYERS = layers();
const layerOf = (file: string): { place: string; layer: number | undefined } => {
  const r = rel(file);
  const place = r.includes('/') ? `${r.slice(0, r.indexOf('/'))}/` : r;
  return { place, layer: LAYERS.get(place) };
};

test('docs/development.md numbers every folder and top-level file of src/ in its source map', () => {
  assert.ok(LAYERS.size > 10, `read ${LAYERS.size} layers from docs/development.md`);
  for (const file of graph.keys()) {
    const { place, layer } = layerOf(file);
    if (place === 'build/') continue;
    assert.notEqual(layer, undefined, `src/${place} has no layer number in docs/development.md's source map`);
  }
  for (const place of LAYERS.keys()) {
    assert.ok([...graph.keys()].some((f) => layerOf(f).place === place), `docs/development.md numbers src/${place}, which does not exist`);
  }
});

test('no module imports from a layer above its own', () => {
  const upward: string[] = [];
  for (const file of graph.keys()) {
    const from = layerOf(file);
    if (from.layer === undefined) continue;
    for (const dep of allImportsOf(file)) {
      const to = layerOf(dep);
      if (to.layer !== undefined && to.layer > from.layer) upward.push(`${rel(file)} (layer ${from.layer}) imports ${rel(dep)} (layer ${to.layer})`);
    }
  }
  assert.deepEqual(upward, []);
});

test('the bounds table imports nothing', () => {
  // It may be read from anywhere because it reads nothing itself.
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
