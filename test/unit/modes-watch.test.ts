import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModeRegistry, type ModesChange } from '../../src/modes/registry.js';
import type { Catalogue } from '../../src/modes/catalogue.js';
import { silentLogger } from '../../src/log.js';

const doc = (...modes: [string, string][]): string =>
  JSON.stringify({ customModes: modes.map(([slug, name]) => ({ slug, name, roleDefinition: 'r', groups: ['read'] })) });

/** A registry watching a fresh project, and a way to await the change that makes a condition true. */
async function watched(t: { after(fn: () => Promise<void> | void): void }, initial?: string) {
  const base = await mkdtemp(join(tmpdir(), 'modes-watch-'));
  const project = join(base, 'project');
  await mkdir(project);
  if (initial !== undefined) await writeFile(join(project, '.roomodes'), initial);
  const reg = new ModeRegistry({ projectRoot: project, configDir: join(base, 'config'), globalModesFile: null }, silentLogger);
  t.after(async () => { reg.close(); await rm(base, { recursive: true, force: true }); });
  await reg.load();
  const events: ModesChange[] = [];
  let wake: (() => void) | null = null;
  await reg.watch((e) => { events.push(e); wake?.(); });
  /** Resolves with the events seen so far once a change event leaves the catalogue satisfying `ok`. */
  const until = (ok: (c: Catalogue) => boolean, what: string): Promise<ModesChange[]> => new Promise((resolve, reject) => {
    const deadline = setTimeout(() => { wake = null; reject(new Error(`no change event made this true within 5 s: ${what}`)); }, 5000);
    wake = () => {
      if (!ok(reg.current)) return;
      clearTimeout(deadline);
      wake = null;
      resolve(events.splice(0));
    };
  });
  return { reg, project, base, events, until };
}

const allSlugs = (events: ModesChange[]): Set<string> => new Set(events.flatMap((e) => e.changedSlugs));

test('writing .roomodes in place reports the added and changed slugs', async (t) => {
  const w = await watched(t, doc(['a', 'A1']));
  assert.equal(w.reg.current.get('a')!.name, 'A1');
  const seen = w.until((c) => c.get('a')?.name === 'A2' && c.get('b') !== undefined, 'a renamed, b added');
  await writeFile(join(w.project, '.roomodes'), doc(['a', 'A2'], ['b', 'B']));
  const events = await seen;
  assert.deepEqual([...allSlugs(events)].sort(), ['a', 'b']);
  assert.ok(events.some((e) => e.listChanged));
});

test('saving by rename over .roomodes is noticed', async (t) => {
  const w = await watched(t, doc(['a', 'A1']));
  const seen = w.until((c) => c.get('a')?.name === 'A3', 'a renamed via rename-over');
  const tmp = join(w.project, '.roomodes.tmp-save');
  await writeFile(tmp, doc(['a', 'A3']));
  await rename(tmp, join(w.project, '.roomodes'));
  const events = await seen;
  assert.ok(allSlugs(events).has('a'));
  assert.ok(events.every((e) => !e.listChanged), 'only a definition changed, not the list');
});

test('deleting and recreating .roomodes is noticed, removal included', async (t) => {
  const w = await watched(t, doc(['a', 'A1'], ['gone', 'G']));
  const seen = w.until((c) => c.get('a')?.name === 'A4' && c.get('gone') === undefined, 'recreated without "gone"');
  await unlink(join(w.project, '.roomodes'));
  await writeFile(join(w.project, '.roomodes'), doc(['a', 'A4']));
  const events = await seen;
  assert.ok(allSlugs(events).has('gone'));
  assert.ok(events.some((e) => e.listChanged));
});

test('a burst of writes settles on the last content', async (t) => {
  const w = await watched(t, doc(['a', 'A0']));
  const seen = w.until((c) => c.get('a')?.name === 'A9', 'the last write wins');
  for (let i = 1; i <= 9; i++) await writeFile(join(w.project, '.roomodes'), doc(['a', `A${i}`]));
  await seen;
  assert.equal(w.reg.current.get('a')!.name, 'A9');
});

test('a .roomodes created after watching started is picked up', async (t) => {
  const w = await watched(t);
  const seen = w.until((c) => c.get('late') !== undefined, 'late mode appears');
  await writeFile(join(w.project, '.roomodes'), doc(['late', 'L']));
  assert.deepEqual([...allSlugs(await seen)], ['late']);
});

test('activating a mode set in a directory that did not exist is picked up', async (t) => {
  const w = await watched(t, doc(['plain', 'P']));
  const seen = w.until((c) => c.get('from-set') !== undefined && c.get('plain') === undefined, 'mode set active');
  const sets = join(w.project, '.task_orchestrator');
  await mkdir(join(sets, 'roles'), { recursive: true });
  await writeFile(join(sets, 'roles', 'team.yaml'), doc(['from-set', 'S']));
  await writeFile(join(sets, 'active_mode_set'), 'team.yaml');
  await seen;
  const again = w.until((c) => c.get('from-set')?.name === 'S2', 'the active set is itself watched');
  await writeFile(join(sets, 'roles', 'team.yaml'), doc(['from-set', 'S2']));
  await again;
});

test('the global modes file is watched too, even when the config dir appears later', async (t) => {
  const w = await watched(t);
  const seen = w.until((c) => c.get('global-one')?.source === 'global', 'global mode appears');
  await mkdir(join(w.base, 'config'));
  await writeFile(join(w.base, 'config', 'modes.yaml'), doc(['global-one', 'G']));
  await seen;
});

test('after close no listener runs and the catalogue stays as it was', async (t) => {
  const w = await watched(t, doc(['a', 'A1']));
  w.reg.close();
  await writeFile(join(w.project, '.roomodes'), doc(['a', 'changed']));
  await w.reg.load();
  assert.equal(w.events.length, 0);
  assert.equal(w.reg.current.get('a')!.name, 'A1');
});
