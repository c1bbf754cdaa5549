// The hook's one-mode load (loadOneMode, src/modes/one-mode.ts) against the whole catalogue: for every fixture mode
// file (and the real-world corpus when it is beside us), every slug, the same mode and the same decisions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalogue, type ModeSourcesConfig } from '../../src/modes/catalogue.js';
import { loadOneMode, mayDefineSlug } from '../../src/modes/one-mode.js';
import type { CompiledMode } from '../../src/modes/permissions.js';
import { cleanRooText } from '../../src/modes/mode-file.js';
import { convertLegacyRoles } from '../../src/modesets/legacy.js';
import { decideHookCall } from '../../src/hook/decide.js';
import { ROOMODES_CORPUS, corpusMissing } from '../shared-corpus.js';

const FIXTURE_DIRS = ['mode-files', 'dialects'].map((d) => fileURLToPath(new URL(`../fixtures/${d}/`, import.meta.url)));
const MODE_FILE = /\.(ya?ml|roomodes|kilocodemodes|json)$/;

/** Tool calls covering every group, aliases, other agents' names, MCP names, with and without files. */
const CALLS: readonly (readonly [string, string | undefined])[] = [
  ['read_file', 'src/main.ts'], ['read_file', undefined], ['Read', 'docs/a.md'],
  ['Edit', 'src/main.ts'], ['Edit', 'docs/guide.md'], ['Edit', 'test/x.test.ts'], ['Edit', undefined],
  ['write_to_file', 'README.md'], ['apply_diff', 'src/a.ts'], ['Write', '/elsewhere/outside.md'],
  ['execute_command', undefined], ['Bash', undefined], ['browser_action', undefined],
  ['use_mcp_tool', undefined], ['mcp__github__create_issue', undefined], ['mcp__fs__read_file', undefined],
  ['switch_mode', undefined], ['new_task', undefined], ['attempt_completion', undefined], ['no_such_tool', undefined],
];

interface Setup { config: ModeSourcesConfig; root: string }

/** A project (and an empty home) with `text` as its .roomodes, or as the global modes file. */
async function setup(base: string, text: string, place: 'project' | 'global'): Promise<Setup> {
  const dir = await mkdtemp(join(base, `${place}-`));
  const root = join(dir, 'project');
  const home = join(dir, 'home');
  await mkdir(root);
  await mkdir(home);
  const globalFile = join(dir, 'global.yaml');
  await writeFile(place === 'project' ? join(root, '.roomodes') : globalFile, text);
  return {
    root,
    config: {
      projectRoot: root, configDir: join(home, '.roo-code'), globalModesFile: place === 'global' ? globalFile : null,
      env: { HOME: home }, homeDir: home, convertDocument: convertLegacyRoles,
    },
  };
}

/** Every slug the text may mention (valid or not), the built-ins, and one no file defines. */
function slugsToAsk(text: string, loaded: readonly string[]): string[] {
  const written = [...text.matchAll(/slug["']?\s*:\s*["']?([A-Za-z0-9_-]+)/g)].map((m) => m[1]!);
  return [...new Set([...loaded, ...written, 'no-such-mode-here'])];
}

const plain = (m: CompiledMode | undefined): unknown => {
  if (m === undefined) return undefined;
  const { compiled: _compiled, ...rest } = m;
  return rest;
};

/** At most `max` of the slugs, spread over the list, always with the first and the last (the absent one). */
function spread(slugs: string[], max: number): string[] {
  if (slugs.length <= max) return slugs;
  return [...new Set(Array.from({ length: max }, (_, i) => slugs[Math.round((i * (slugs.length - 1)) / (max - 1))]!))];
}

/** Asks both paths for each slug (or `max` of them); returns how many slugs were compared. */
async function compare(s: Setup, text: string, label: string, max = Infinity): Promise<number> {
  const catalogue = await loadCatalogue(s.config);
  const slugs = spread(slugsToAsk(text, catalogue.slugs()), max);
  for (const slug of slugs) {
    const full = catalogue.get(slug);
    const one = await loadOneMode(s.config, slug);
    assert.deepStrictEqual(plain(one), plain(full), `${label}: mode "${slug}"`);
    if (full === undefined || one === undefined) continue;
    for (const [tool, path] of CALLS) {
      for (const given of path === undefined ? [undefined] : [path, join(s.root, path)]) {
        assert.deepStrictEqual(decideHookCall(one, tool, given, s.root), decideHookCall(full, tool, given, s.root), `${label}: ${slug} ${tool} ${given ?? '(no file)'}`);
      }
    }
  }
  return slugs.length;
}

async function compareFiles(t: { after(fn: () => Promise<void>): void }, files: readonly string[], places: readonly ('project' | 'global')[], max = Infinity): Promise<number> {
  const base = await mkdtemp(join(tmpdir(), 'one-mode-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  let asked = 0;
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    for (const place of places) asked += await compare(await setup(base, text, place), text, `${file} as ${place}`, max);
  }
  return asked;
}

test('every fixture mode file, as .roomodes and as the global file: the one-mode load equals the catalogue for every slug', async (t) => {
  const files: string[] = [];
  for (const dir of FIXTURE_DIRS) for (const name of (await readdir(dir)).sort()) if (MODE_FILE.test(name) && !name.endsWith('.expected.json')) files.push(join(dir, name));
  assert.ok(files.length >= 20, `only ${files.length} fixture files`);
  const asked = await compareFiles(t, files, ['project', 'global']);
  assert.ok(asked > files.length * 2, `${asked} slugs asked`);
});

test('the real-world corpus as .roomodes: the one-mode load equals the catalogue for up to 16 slugs a file', { skip: corpusMissing }, async (t) => {
  const files = (await readdir(ROOMODES_CORPUS)).filter((n) => n.endsWith('.roomodes')).sort().map((n) => join(ROOMODES_CORPUS, n));
  assert.ok(files.length > 0);
  // Some files hold hundreds of modes; each one-mode load parses the file again, so a spread sample is asked.
  await compareFiles(t, files, ['project'], 16);
});

test('precedence holds when the project file cannot define the mode but the global one does, and the other way round', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'one-mode-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const s = await setup(base, 'customModes:\n  - slug: shared\n    name: Global one\n    roleDefinition: g\n    groups: [read]\n', 'global');
  // The project's entry for "shared" is invalid (no roleDefinition): the global one wins in both paths.
  await writeFile(join(s.root, '.roomodes'), 'customModes:\n  - slug: shared\n    name: Project one\n    groups: [read, edit]\n  - slug: other\n    name: O\n    roleDefinition: o\n    groups: []\n');
  assert.equal((await loadOneMode(s.config, 'shared'))?.name, 'Global one');
  await compare(s, 'slug: shared\nslug: other', 'project invalid over global');
  // A project file broken as YAML defines nothing, even for a slug it spells: the built-in decides.
  await writeFile(join(s.root, '.roomodes'), 'customModes:\n  - slug: architect\n    name: "unclosed\n');
  assert.equal((await loadOneMode(s.config, 'architect'))?.source, 'builtin');
  await compare(s, 'slug: architect\nslug: shared', 'broken project file');
});

test('an active mode set of legacy roles, whose keys become slugs the text never spells, is read in full', async (t) => {
  const base = await mkdtemp(join(tmpdir(), 'one-mode-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const s = await setup(base, 'customModes: []\n', 'project');
  const sets = join(s.root, '.task_orchestrator');
  await mkdir(join(sets, 'roles'), { recursive: true });
  const legacy = 'task_orchestrator:\n  role_definition: You split the work.\ncode_reviewer:\n  role_definition: You review code.\n';
  await writeFile(join(sets, 'roles', 'legacy.yaml'), legacy);
  await writeFile(join(sets, 'active_mode_set'), 'legacy.yaml\n');
  const catalogue = await loadCatalogue(s.config);
  assert.ok(catalogue.get('task-orchestrator'), `converted slugs: ${catalogue.slugs().join(', ')}`);
  assert.equal(mayDefineSlug(legacy, 'task-orchestrator'), false);
  assert.equal((await loadOneMode(s.config, 'task-orchestrator'))?.slug, 'task-orchestrator');
  await compare(s, 'slug: task-orchestrator\nslug: code-reviewer', 'legacy mode set');
});

test('a slug built by an escape is found, and a file that cannot spell the slug is not parsed', async (t) => {
  assert.equal(mayDefineSlug('customModes: []\n', 'docs-writer'), false);
  assert.equal(mayDefineSlug("fileRegex: '\\.(md|mdx)$'\n", 'docs-writer'), false, 'a backslash that builds nothing');
  for (const text of ['slug: "\\x64ocs-writer"', 'slug: "docs\\u002dwriter"', 'slug: "docs-\\\n  writer"', '{"slug": "\\u0064ocs-writer"}', 'slug: docs\u2010writer', 'slug: docs-wr\u200biter']) {
    assert.equal(mayDefineSlug(text, 'docs-writer'), true, JSON.stringify(text));
  }
  // The scan allows for Roo's clean-up without its table, on this property: ASCII stays, and any other
  // character stays, vanishes or becomes one ASCII character that is no letter, digit, backslash or break.
  for (let code = 0; code < 0x10000; code += 1) {
    const ch = String.fromCharCode(code);
    const out = cleanRooText(`x${ch}`).slice(1);
    if (code < 0x80) assert.equal(out, ch);
    else assert.ok(out === ch || out === '' || (out.length === 1 && out < '\x80' && !/[A-Za-z0-9\\\r\n]/.test(out)), `U+${code.toString(16)} -> ${JSON.stringify(out)}`);
  }
  assert.equal(mayDefineSlug('slug: docs\u2010wr\u200biter', 'docs-writer'), true);
  assert.equal(mayDefineSlug('name: \u{1f4dd} Docs, slug: other', 'docs-writer'), false, 'an emoji elsewhere is no reason to parse');
  assert.equal(mayDefineSlug('"\\\u200bx64ocs-writer"', 'docs-writer'), true, 'a dropped character between the backslash and x');
  const base = await mkdtemp(join(tmpdir(), 'one-mode-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const yaml = 'customModes:\n  - slug: "\\x64ocs-writer"\n    name: Docs\n    roleDefinition: r\n    groups: [read]\n';
  const s = await setup(base, yaml, 'project');
  assert.equal((await loadOneMode(s.config, 'docs-writer'))?.name, 'Docs');
  await compare(s, 'slug: docs-writer', 'escaped slug');
  // Look-alike dashes are cleaned before parsing, as Roo does: the cleaned text spells the slug.
  await writeFile(join(s.root, '.roomodes'), 'customModes:\n  - slug: docs\u2011writer\n    name: Dashed\n    roleDefinition: r\n    groups: [read]\n');
  assert.equal((await loadOneMode(s.config, 'docs-writer'))?.name, 'Dashed');
});
