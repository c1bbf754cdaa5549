import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalogue, type ModeSourcesConfig } from '../../src/modes/catalogue.js';
import { ModeRegistry } from '../../src/modes/registry.js';
import { validateModeEntry } from '../../src/modes/validate-mode.js';
import { silentLogger } from '../../src/log.js';
import { ROOMODES_CORPUS, corpusMissing } from '../shared-corpus.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/mode-files/', import.meta.url));

interface Dirs { base: string; project: string; config: string; put(path: string, text: string): Promise<string> }

async function dirs(t: { after(fn: () => Promise<void>): void }): Promise<Dirs> {
  const base = await mkdtemp(join(tmpdir(), 'modes-cat-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const project = join(base, 'project');
  const config = join(base, 'config');
  await mkdir(project);
  await mkdir(config);
  return {
    base, project, config,
    async put(path, text) {
      const full = join(base, path);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, text);
      return full;
    },
  };
}

const mode = (slug: string, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ slug, name: `Name ${slug}`, roleDefinition: `Role of ${slug}.`, groups: ['read'], ...extra });
/** JSON laid out one mode per line, so line numbers are predictable: mode i is on line i + 2. */
const doc = (...modes: unknown[]): string => `{"customModes": [\n${modes.map((m) => JSON.stringify(m)).join(',\n')}\n]}\n`;
const cfg = (d: Dirs, extra: Partial<ModeSourcesConfig> = {}): ModeSourcesConfig =>
  ({ projectRoot: d.project, configDir: d.config, globalModesFile: null, ...extra });

test('with no mode files the catalogue is the five built-ins and no issues', async (t) => {
  const d = await dirs(t);
  const cat = await loadCatalogue(cfg(d));
  assert.deepEqual(cat.slugs(), ['code', 'architect', 'ask', 'debug', 'orchestrator']);
  assert.ok(cat.modes.every((m) => m.source === 'builtin' && m.compiled));
  assert.deepEqual([cat.issues, cat.files], [[], []]);
});

test('project beats global beats built-in, by slug, with true sources, files and lines', async (t) => {
  const d = await dirs(t);
  const global = await d.put('config/modes.yaml', doc(mode('code', { name: 'Global code' }), mode('g-only'), mode('shared', { name: 'Global shared' })));
  const project = await d.put('project/.roomodes', doc(mode('shared', { name: 'Project shared' }), mode('p-only'), mode('ask', { name: 'Project ask' })));
  const cat = await loadCatalogue(cfg(d));
  assert.deepEqual(cat.slugs(), ['code', 'architect', 'ask', 'debug', 'orchestrator', 'shared', 'p-only', 'g-only']);
  const row = (slug: string): unknown[] => { const m = cat.get(slug)!; return [m.name, m.source, m.file, m.line]; };
  assert.deepEqual(row('code'), ['Global code', 'global', global, 2]);
  assert.deepEqual(row('ask'), ['Project ask', 'project', project, 4]);
  assert.deepEqual(row('shared'), ['Project shared', 'project', project, 2]);
  assert.deepEqual(row('g-only'), ['Name g-only', 'global', global, 3]);
  assert.deepEqual(row('architect'), ['🏗️ Architect', 'builtin', undefined, undefined]);
  assert.deepEqual([...cat.files], [global, project]);
  assert.equal(cat.get('nope'), undefined);
  assert.equal(cat.get('__proto__'), undefined);
});

test('the global file is --global-modes-file, else modes.yaml, else custom_modes.yaml', async (t) => {
  const d = await dirs(t);
  await d.put('config/custom_modes.yaml', doc(mode('from-custom')));
  assert.ok((await loadCatalogue(cfg(d))).get('from-custom'));
  await d.put('config/modes.yaml', doc(mode('from-modes')));
  let cat = await loadCatalogue(cfg(d));
  assert.ok(cat.get('from-modes') && !cat.get('from-custom'));
  const explicit = await d.put('elsewhere/mine.yaml', doc(mode('from-flag')));
  cat = await loadCatalogue(cfg(d, { globalModesFile: explicit }));
  assert.deepEqual(cat.slugs().slice(5), ['from-flag']);
  cat = await loadCatalogue(cfg(d, { globalModesFile: join(d.base, 'missing.yaml') }));
  assert.deepEqual([cat.slugs().length, cat.issues.length], [5, 0]);
});

test('the active mode set replaces .roomodes, through the conversion hook', async (t) => {
  const d = await dirs(t);
  await d.put('project/.roomodes', doc(mode('from-roomodes')));
  const set = await d.put('project/.task_orchestrator/roles/team.yaml', doc(mode('from-set')));
  await d.put('project/.task_orchestrator/active_mode_set', 'team.yaml\n');
  const seen: string[] = [];
  const cat = await loadCatalogue(cfg(d, {
    convertDocument: (value, file) => { seen.push(file); return value; },
  }));
  assert.deepEqual(cat.slugs().slice(5), ['from-set']);
  assert.equal(cat.get('from-set')!.file, set);
  assert.equal(cat.get('from-set')!.source, 'project');
  assert.deepEqual(seen, [set]);
  const custom = await loadCatalogue(cfg(d, { modesetsDir: 'sets' }));
  assert.deepEqual(custom.slugs().slice(5), ['from-roomodes']);
});

test('a pointer to a missing or unsafe mode set falls back to .roomodes with a notice', async (t) => {
  const d = await dirs(t);
  await d.put('project/.roomodes', doc(mode('from-roomodes')));
  await d.put('project/secret.yaml', doc(mode('escaped')));
  for (const pointer of ['missing.yaml', '../../secret.yaml', '']) {
    await d.put('project/.task_orchestrator/active_mode_set', pointer);
    const cat = await loadCatalogue(cfg(d));
    assert.deepEqual(cat.slugs().slice(5), ['from-roomodes'], pointer);
    assert.equal(cat.notices.length, 1, pointer);
    assert.match(cat.notices[0]!.file, /active_mode_set$/);
  }
});

test('a broken file is reported with line and column while the other layer still loads', async (t) => {
  const d = await dirs(t);
  await d.put('config/modes.yaml', doc(mode('global-ok')));
  const broken = await d.put('project/.roomodes', '{"customModes": [\n  {"slug": "x",\n  ]\n');
  const cat = await loadCatalogue(cfg(d));
  assert.deepEqual(cat.slugs().slice(5), ['global-ok']);
  assert.equal(cat.issues.length, 1);
  const issue = cat.issues[0]!;
  assert.equal(issue.file, broken);
  assert.ok(typeof issue.line === 'number' && issue.line >= 1 && typeof issue.column === 'number', JSON.stringify(issue));
  assert.deepEqual([...cat.files], [join(d.config, 'modes.yaml'), broken]);
});

test('one invalid mode is skipped and reported while its neighbours load', async (t) => {
  const d = await dirs(t);
  await d.put('project/.roomodes', doc(mode('good-1'), mode('bad', { groups: ['execute'] }), mode('good-1', { name: 'again' }), mode('good-2')));
  const cat = await loadCatalogue(cfg(d));
  assert.deepEqual(cat.slugs().slice(5), ['good-1', 'good-2']);
  assert.deepEqual(cat.issues.map((i) => [i.line, i.slug]), [[3, 'bad'], [4, 'good-1']]);
});

test('files over 10 MiB are refused unread', async (t) => {
  const d = await dirs(t);
  const big = await d.put('project/.roomodes', '');
  await truncate(big, 10 * 1024 * 1024 + 1);
  const cat = await loadCatalogue(cfg(d));
  assert.equal(cat.slugs().length, 5);
  assert.match(cat.issues[0]!.message, /over 10485760 bytes are refused/);
});

test('a directory where a mode file should be is an issue, not a crash', async (t) => {
  const d = await dirs(t);
  await mkdir(join(d.project, '.roomodes'));
  const cat = await loadCatalogue(cfg(d));
  assert.match(cat.issues[0]!.message, /not a regular file/);
});

test('the registry starts with the built-ins and reloads when the project root changes', async (t) => {
  const d = await dirs(t);
  const other = join(d.base, 'other');
  await d.put('other/.roomodes', doc(mode('elsewhere')));
  const reg = new ModeRegistry(cfg(d), silentLogger);
  t.after(() => reg.close());
  assert.equal(reg.current.slugs().length, 5);
  await reg.load();
  assert.equal(reg.current.get('elsewhere'), undefined);
  const before = reg.current;
  await reg.setProjectRoot(other);
  assert.ok(reg.current.get('elsewhere'));
  assert.notEqual(reg.current, before);
  assert.ok(Object.isFrozen(reg.current.modes));
  await reg.setProjectRoot(null);
  assert.equal(reg.current.get('elsewhere'), undefined);
});

/**
 * Loads each mode file of `folder` as a project's .roomodes and checks that exactly the entries
 * passing validation are listed, the others reported with a line. NAME.expected.json beside each
 * file holds what Roo's loader makes of it. Returns the counts of listed and reported modes.
 */
async function loadsLikeRoo(t: { after(fn: () => Promise<void>): void }, folder: string, names: string[]): Promise<{ checkedModes: number; reported: number }> {
  const d = await dirs(t);
  let checkedModes = 0;
  let reported = 0;
  for (const name of names) {
    const expected = JSON.parse(await readFile(join(folder, name.replace(/\.\w+$/, '.expected.json')), 'utf8')) as { ok: boolean; via?: 'json'; value?: unknown };
    const root = join(d.base, name);
    await mkdir(root);
    await symlink(join(folder, name), join(root, '.roomodes'));
    const cat = await loadCatalogue({ projectRoot: root, configDir: join(d.base, 'none'), globalModesFile: null });
    const project = cat.modes.filter((m) => m.source === 'project');
    if (!expected.ok) {
      assert.equal(project.length, 0, `${name}: a broken file defines no modes`);
      assert.equal(cat.issues.length, 1, name);
      assert.ok((cat.issues[0]!.line ?? 0) >= 1, `${name}: the parse error has a line`);
      continue;
    }
    const value = expected.value as { customModes?: unknown };
    const list = value !== null && typeof value === 'object' && Array.isArray(value.customModes) ? (value.customModes as unknown[]) : null;
    if (!list) {
      assert.deepEqual([project.length, cat.issues.length], [0, 0], `${name}: no customModes list means no modes and no errors`);
      continue;
    }
    const seen = new Set<string>();
    const want: Record<string, unknown>[] = [];
    let invalid = 0;
    for (const entry of list) {
      const r = validateModeEntry(entry);
      if (!r.ok) { invalid++; continue; }
      if (seen.has(r.mode.slug)) { invalid++; continue; }
      if (r.misplaced) invalid++; // loaded as Roo loads it, and reported: a fileRegex beside the groups restricts nothing
      seen.add(r.mode.slug);
      want.push(entry as Record<string, unknown>);
    }
    const pick = (m: object | undefined): unknown[] => {
      const r = m as Record<string, unknown> | undefined;
      return r ? [r.slug, r.name, r.roleDefinition, r.groups] : ['(not loaded)'];
    };
    const bySlug = new Map(project.map((m) => [m.slug, m]));
    assert.deepEqual(want.map((m) => pick(bySlug.get(m.slug as string))), want.map(pick), name);
    assert.equal(project.length, want.length, name);
    assert.equal(cat.issues.length, invalid, `${name}: ${JSON.stringify(cat.issues.slice(0, 2))}`);
    assert.ok(cat.issues.every((i) => typeof i.line === 'number' && i.line >= 1), `${name}: every skipped mode has a line`);
    const lines = want.map((w) => bySlug.get(w.slug as string)!.line!);
    // Text read through the JSON fallback keeps no positions (readModeFileText), so no lines there.
    if (expected.via === 'json') { assert.deepEqual(lines.filter((l) => l !== undefined), [], name); checkedModes += want.length; continue; }
    assert.ok(lines.every((l, i) => l >= 1 && (i === 0 || lines[i - 1]! < l)), `${name}: lines increase in file order`);
    checkedModes += want.length;
    reported += invalid;
  }
  return { checkedModes, reported };
}

test('fixtures: each feature file loads as .roomodes with exactly the entries that pass validation', async (t) => {
  const names = (await readdir(FIXTURES)).filter((n) => /\.(yaml|roomodes)$/.test(n)).sort();
  const { checkedModes, reported } = await loadsLikeRoo(t, FIXTURES, names);
  assert.ok(checkedModes >= 12, String(checkedModes));
  assert.ok(reported > 0, 'the fixtures hold invalid modes, reported');
});

test('corpus: each real mode file loads as .roomodes with exactly the entries that pass validation', { skip: corpusMissing }, async (t) => {
  const names = (await readdir(ROOMODES_CORPUS)).filter((n) => n.endsWith('.roomodes')).sort();
  assert.ok(names.length >= 60);
  const { checkedModes, reported } = await loadsLikeRoo(t, ROOMODES_CORPUS, names);
  assert.ok(checkedModes > 500, String(checkedModes));
  assert.ok(reported > 0, 'some corpus modes are invalid and reported');
});
