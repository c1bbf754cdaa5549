// Every mode-file write whole, nothing left behind, through the built server: import_mode killed
// with SIGKILL at seeded moments leaves the old or the new mode and rules after a restart, never a
// mix; dead writers' temp files go at start and after a write; backups keep the newest N.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startServer } from '../protocol/harness.js';
import { runSeed } from './prng.js';
import { endAndDrain, exitAndDrain, scratchDir } from './drive.js';

type State = 'A' | 'B';

/** State A: 200 rules files a-<k>.md; state B: 120 files b-<k>.md and one nested. Roles name the state. */
function importDoc(state: State): string {
  const rulesFiles = state === 'A'
    ? Array.from({ length: 200 }, (_, k) => ({ relativePath: `a-${k}.md`, content: `A rule ${k}\n${'a'.repeat(2000)}\n` }))
    : [...Array.from({ length: 120 }, (_, k) => ({ relativePath: `b-${k}.md`, content: `B rule ${k}\n${'b'.repeat(3000)}\n` })), { relativePath: 'deep/b-nested.md', content: 'B nested\n' }];
  return JSON.stringify({ customModes: [{ slug: 'imp', name: 'Imp', roleDefinition: `Role of state ${state}.`, groups: ['read'], rulesFiles }] });
}

function filesUnder(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p); else out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** The project's state, when it is exactly one of A or B (mode file and rules agree); else why not. */
function stateOf(project: string): State | string {
  const text = readFileSync(join(project, '.roomodes'), 'utf8');
  const role = /Role of state ([AB])\./.exec(text)?.[1] as State | undefined;
  if (role === undefined) return `the mode file names no state: ${text.slice(0, 200)}`;
  const files = filesUnder(join(project, '.roo', 'rules-imp'));
  const want = new Map((JSON.parse(importDoc(role)).customModes[0].rulesFiles as { relativePath: string; content: string }[]).map((r) => [r.relativePath, r.content]));
  if (files.size !== want.size) return `the mode file says ${role}, but rules-imp holds ${files.size} files of ${want.size}`;
  for (const [name, content] of want) if (files.get(name) !== content) return `the mode file says ${role}, but rules-imp/${name} differs`;
  return role;
}

/** Our temp and staging names anywhere in the project (the backups folder aside). */
function leftovers(project: string): string[] {
  const names = [...readdirSync(project), ...(existsSync(join(project, '.roo')) ? readdirSync(join(project, '.roo')).map((n) => `.roo/${n}`) : [])];
  return names.filter((n) => /\.tmp$|\.journal$/.test(n));
}

test('import_mode killed with SIGKILL at seeded moments: after a restart the project is the old state or the new, whole', async (t) => {
  const rng = runSeed('import-kill');
  const project = scratchDir(t, 'rms-import-kill-');
  const args = ['--project-root', project];
  // The first import, timed, gives the span in which the kills are placed.
  const first = startServer(t, { args });
  await first.initialize();
  const started = Date.now();
  const made = await first.tool('first', 'import_mode', { yaml: importDoc('A') });
  const span = Date.now() - started;
  assert.ok(made.result && !made.result.isError, JSON.stringify(made).slice(0, 400));
  assert.deepEqual(await endAndDrain(first), { code: 0, signal: null });
  let current: State = 'A';
  const outcomes: string[] = [];
  for (let round = 0; round < 8; round++) {
    const target: State = current === 'A' ? 'B' : 'A';
    const s = startServer(t, { args });
    await s.initialize();
    s.request('imp', 'tools/call', { name: 'import_mode', arguments: { yaml: importDoc(target) } });
    // The kill point: a seeded moment within (and a little past) a whole import's time.
    await delay(rng.int(0, Math.ceil(span * 1.3)));
    s.child.kill('SIGKILL');
    await exitAndDrain(s);
    const acknowledged = s.messages.some((m) => m.id === 'imp' && m.result && !m.result.isError);

    const r = startServer(t, { args });
    await r.initialize();
    const info = await r.tool('info', 'get_mode_info', { mode_slug: 'imp' });
    assert.ok(info.result, `round ${round}: the mode is there after the restart`);
    const now = stateOf(project);
    assert.ok(now === 'A' || now === 'B', `round ${round} (${current} -> ${target}): ${now}`);
    if (acknowledged) assert.equal(now, target, `round ${round}: an acknowledged import stays`);
    assert.deepEqual(leftovers(project), [], `round ${round}: nothing left behind; ${r.stderr}`);
    assert.deepEqual(await endAndDrain(r), { code: 0, signal: null });
    outcomes.push(`${current}->${now}${acknowledged ? '(acked)' : ''}`);
    current = now as State;
  }
  t.diagnostic(`outcomes: ${outcomes.join(' ')}`);
});

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid!;
}

function plantLeftovers(project: string, pid: number): string[] {
  mkdirSync(join(project, '.roo'), { recursive: true });
  const files = [`.roomodes.lock.${pid}.00000000abcd.tmp`, `..roomodes.${pid}.00000000abcd.tmp`, `.roomodes.lock.stale.${pid}.0000000000ef.tmp`];
  for (const f of files) writeFileSync(join(project, f), 'left');
  const dirs = [`.roo/.rules-imp.${pid}.0000000000aa.tmp`, `.roo/.rules-imp.old.${pid}.0000000000bb.tmp`];
  for (const d of dirs) { mkdirSync(join(project, d, 'sub'), { recursive: true }); writeFileSync(join(project, d, 'sub', 'x.md'), 'x'); }
  return [...files, ...dirs];
}

test('temp files and staged folders of dead writers are removed at start and after a write; a live writer\'s stay', async (t) => {
  const project = scratchDir(t, 'rms-leftovers-');
  const dead = plantLeftovers(project, deadPid());
  const live = `..roomodes.${process.pid}.00000000beef.tmp`;
  writeFileSync(join(project, live), 'a live writer is busy with this');
  writeFileSync(join(project, 'notes.tmp'), 'not ours');
  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  assert.ok((await s.tool('l', 'list_modes')).result);
  for (const name of dead) assert.equal(existsSync(join(project, name)), false, `${name} was removed at start`);
  assert.ok(existsSync(join(project, live)), 'a live writer\'s temp file stays');
  assert.ok(existsSync(join(project, 'notes.tmp')), 'a file that is not ours stays');

  const again = plantLeftovers(project, deadPid());
  const w = await s.tool('w', 'create_mode', { slug: 'tidy', name: 'Tidy', role_definition: 'Tidies.', groups: [{ group: 'read' }] });
  assert.ok(w.result && !w.result.isError, JSON.stringify(w).slice(0, 300));
  for (const name of again) assert.equal(existsSync(join(project, name)), false, `${name} was removed after the write`);
  assert.ok(existsSync(join(project, live)));
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});

test('backups of a mode file keep the newest backups.keep folders: oldest removed first, never the new one, nothing else touched', async (t) => {
  const project = scratchDir(t, 'rms-backups-');
  const config = join(project, 'config.json');
  writeFileSync(config, JSON.stringify({ backups: { keep: 3 } }));
  const backups = join(project, '.roo', 'backups');
  mkdirSync(join(backups, 'my-notes'), { recursive: true });
  const s = startServer(t, { args: ['--project-root', project, '--config', config] });
  await s.initialize();
  assert.ok((await s.tool('c', 'create_mode', { slug: 'kept', name: 'Kept', role_definition: 'Version 0.', groups: [{ group: 'read' }] })).result);
  const made: string[] = [];
  for (let i = 1; i <= 7; i++) {
    const r = await s.tool(`u${i}`, 'update_mode', { slug: 'kept', role_definition: `Version ${i}.` });
    assert.ok(r.result && !r.result.isError, JSON.stringify(r).slice(0, 300));
    made.push(relative(backups, r.result.metadata.backup as string));
  }
  const left = readdirSync(backups).sort();
  assert.deepEqual(left, [...made.slice(-3), 'my-notes'].sort(), 'the three newest backups and the folder that is not ours');
  assert.match(readFileSync(join(backups, made.at(-1)!, '.roomodes'), 'utf8'), /Version 6\./, 'the newest backup holds the file it replaced');
  assert.ok(statSync(join(backups, 'my-notes')).isDirectory());
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});

test('an import cut short after its commit (rules swapped in, mode file not yet) is finished at the next start', async (t) => {
  // The new mode file's text, as an import of B writes it.
  const other = scratchDir(t, 'rms-journal-b-');
  const b = startServer(t, { args: ['--project-root', other] });
  assert.ok((await b.tool('b', 'import_mode', { yaml: importDoc('B') })).result);
  assert.deepEqual(await endAndDrain(b), { code: 0, signal: null });
  const textB = readFileSync(join(other, '.roomodes'), 'utf8');

  const project = scratchDir(t, 'rms-journal-');
  const a = startServer(t, { args: ['--project-root', project] });
  assert.ok((await a.tool('a', 'import_mode', { yaml: importDoc('A') })).result);
  assert.deepEqual(await endAndDrain(a), { code: 0, signal: null });
  // What a writer that died right after swapping in the rules folder leaves: the journal, the old
  // folder set aside, the new one in place, the new mode file staged but not renamed.
  const suffix = `${deadPid()}.00000000c0de.tmp`;
  const roo = join(project, '.roo');
  renameSync(join(roo, 'rules-imp'), join(roo, `.rules-imp.old.${suffix}`));
  cpSync(join(other, '.roo', 'rules-imp'), join(roo, 'rules-imp'), { recursive: true });
  writeFileSync(join(project, `..roomodes.${suffix}`), textB);
  writeFileSync(join(project, '.roomodes.journal'), JSON.stringify({ format: 1, suffix, rules: ['imp'] }));
  assert.notEqual(stateOf(project), 'A');

  const s = startServer(t, { args: ['--project-root', project] });
  await s.initialize();
  const info = await s.tool('info', 'get_mode_info', { mode_slug: 'imp' });
  assert.match(JSON.stringify(info.result), /Role of state B/, 'the catalogue serves the finished import');
  assert.equal(stateOf(project), 'B');
  assert.deepEqual(leftovers(project), []);
  assert.match(s.stderr, /finished an interrupted change/);
  assert.deepEqual(await endAndDrain(s), { code: 0, signal: null });
});
