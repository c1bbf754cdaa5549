// A writer stalled past its lease at each point of a fenced write, while another replica writes:
// every acknowledged write stays, the file always parses, the stale writer is told the truth.
// In one process against a real redis-server, two lease locks standing for two replicas.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withModeFileLock } from '../../src/authoring/mode-file-lock.js';
import { readModeFile, writeModeFile } from '../../src/authoring/mode-writes.js';
import { modeEntries, upsertModeText } from '../../src/authoring/mode-file-edit.js';
import { importModes, parseImport } from '../../src/authoring/import.js';
import { deleteMode } from '../../src/authoring/authoring.js';
import { Catalogue } from '../../src/modes/catalogue.js';
import { RedisLeaseLock, type SharedLeases, type StallPoint } from '../../src/authoring/mode-file-lease.js';
import { ModesetLock } from '../../src/modesets/lock.js';
import { ModesetPaths } from '../../src/modesets/paths.js';
import { readPointer, writePointer } from '../../src/modesets/set-files.js';
import { replaceFile } from '../../src/authoring/turn-fence.js';
import { createLogger, type Logger } from '../../src/log.js';
import type { RedisClient } from '../../src/redis/client.js';
import { ValidationError } from '../../src/rpc/errors.js';
import { isRecord } from '../../src/rpc/jsonrpc.js';
import { connectedClient, redisMissing, testRedis } from '../redis-server.js';
import { watchParses } from '../mode-file-looks.js';
import { until } from '../replicas.js';

/** Long enough for a healthy write on a busy machine, short enough to outwait in a test. */
const LEASE_MS = 1000;

interface Gate { wait(): Promise<void>; open(): void }
function gate(): Gate {
  let open!: () => void;
  const p = new Promise<void>((resolve) => { open = resolve; });
  return { wait: () => p, open };
}

/** A stall that holds the `nth` write reaching `point` until the test lets it go. */
function stallOnce(point: StallPoint, nth = 1): { stall: (at: StallPoint) => Promise<void>; reached: Gate; go: Gate } {
  const reached = gate();
  const go = gate();
  const seen = { n: 0 };
  return {
    reached, go,
    stall: async (at) => {
      if (at !== point || ++seen.n !== nth) return;
      reached.open();
      await go.wait();
    },
  };
}

interface Rig { dir: string; file: string; rooDir: string; client: RedisClient; warnings: string[]; replica(name: string, stall?: (at: StallPoint) => Promise<void>): SharedLeases }

async function rig(t: TestContext): Promise<Rig> {
  const redis = await testRedis(t);
  const client = await connectedClient(t, { url: redis.url });
  const dir = mkdtempSync(join(tmpdir(), 'rms-stale-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const warnings: string[] = [];
  const log: Logger = createLogger({ level: 'warning', write: (line) => { warnings.push(line); }, forward: null }, 'fence');
  const prefix = `stale-${process.pid}-${Math.random().toString(16).slice(2, 8)}:`;
  return {
    dir, file: join(dir, '.roomodes'), rooDir: join(dir, '.roo'), client, warnings,
    replica: (name, stall) => ({
      lock: new RedisLeaseLock(client, { replica: name, prefix, leaseMs: LEASE_MS }),
      nameOf: (file) => `project:${file.slice(dir.length + 1)}`,
      log,
      ...(stall ? { stall } : {}),
    }) as SharedLeases,
  };
}

const mode = (slug: string) => ({ slug, name: slug, roleDefinition: `The ${slug} role.`, groups: ['read'] });

/** create_mode's read-change-write, under the mode file's turn. */
function addMode(r: Rig, leases: SharedLeases, slug: string): Promise<void> {
  return withModeFileLock(r.file, async () => {
    const text = await readModeFile(r.file);
    await writeModeFile(r.file, upsertModeText(text, mode(slug)).text);
  }, { rooDir: r.rooDir, leases });
}

/** import_mode of one mode "imported" with one rules file, into the project. */
async function importOne(r: Rig, leases: SharedLeases, rules = 'Be brief.'): Promise<void> {
  const paths = { scope: 'project' as const, modeFile: r.file, rooDir: r.rooDir, confineRoot: r.dir, backupRoot: join(r.rooDir, 'backups'), backupsKeep: 5, leases };
  await importModes(parseImport(JSON.stringify({ customModes: [{ ...mode('imported'), rulesFiles: [{ relativePath: 'rules.md', content: rules }] }] })), paths, false);
}

const slugsIn = (text: string): string[] => modeEntries(text).map((e) => (isRecord(e) ? String(e.slug) : '?'));

/** A client's write: a retryable refusal that wrote nothing is tried again, as a client would. */
async function acked(write: () => Promise<void>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try { await write(); return; } catch (err) {
      const data = err instanceof ValidationError ? err.data as { written?: unknown; retryable?: unknown } : {};
      if (tries >= 5 || data.written !== false || data.retryable !== true) throw err;
    }
  }
}

function assertNotWritten(err: unknown): void {
  assert.ok(err instanceof ValidationError, `a -32004 answer, got ${String(err)}`);
  const data = err.data as { written?: unknown; retryable?: unknown };
  assert.equal(data.written, false, JSON.stringify(data));
  assert.equal(data.retryable, true, JSON.stringify(data));
}

test('a writer stalled past its lease between its commit and its rename: the later replica\'s acknowledged writes stay, and its own write counts', { skip: redisMissing }, async (t) => {
  const r = await rig(t);
  const s = stallOnce('rename');
  const a = r.replica('replica-a', s.stall);
  const b = r.replica('replica-b');
  await addMode(r, b, 'first');
  const looks = watchParses(t, r.file);
  const stale = addMode(r, a, 'from-a').then(() => null, (err: unknown) => err);
  await s.reached.wait();
  // Replica B waits out A's lease, then writes three times, each acknowledged.
  for (const slug of ['b1', 'b2', 'b3']) await acked(() => addMode(r, b, slug));
  s.go.open();
  const outcome = await stale;
  const reads = await looks.stop();
  const slugs = slugsIn(readFileSync(r.file, 'utf8'));
  for (const slug of ['first', 'b1', 'b2', 'b3']) assert.ok(slugs.includes(slug), `acknowledged ${slug} kept: ${slugs.join(',')}`);
  // Its record was committed before the stall: the write counted, and the later ones were built on it.
  assert.equal(outcome, null, `the stale writer's write counted: ${String(outcome)}`);
  assert.ok(slugs.includes('from-a'), `from-a is in the file: ${slugs.join(',')}`);
  assert.equal(new Set(slugs).size, slugs.length, `no mode twice: ${slugs.join(',')}`);
  assert.ok(reads > 0);
  assert.ok(r.warnings.some((w) => /stale/.test(w) && /\.roomodes/.test(w)), `a warning tells of the repair: ${r.warnings.join('')}`);
});

test('a late rename landing during another replica\'s turn makes that turn refuse (nothing written, retryable) and is repaired; both writes then count', { skip: redisMissing }, async (t) => {
  const r = await rig(t);
  const late = stallOnce('rename');
  const during = stallOnce('commit');
  const [a, b, c] = [r.replica('replica-a', late.stall), r.replica('replica-b', during.stall), r.replica('replica-c')];
  await addMode(r, c, 'first');
  const stale = addMode(r, a, 'from-a').then(() => null, (err: unknown) => err);
  await late.reached.wait();
  // C writes after A's lease ran out (putting A's recorded write in place first); then B's turn reads C's file and pauses before its commit.
  await acked(() => addMode(r, c, 'c1'));
  const refused = addMode(r, b, 'b1').then(() => null, (err: unknown) => err);
  await during.reached.wait();
  // A's rename lands now, under B's turn: what B read may be that stale copy.
  late.go.open();
  await until('the late rename to land', () => (!slugsIn(readFileSync(r.file, 'utf8')).includes('c1') ? true : undefined));
  during.go.open();
  assert.equal(await stale, null, 'the late write counts: it was recorded before its stall');
  const err = await refused;
  assertNotWritten(err);
  assert.match(String((err as ValidationError).data && (err as ValidationError & { data: { message: string } }).data.message), /landed late/);
  assert.deepEqual(slugsIn(readFileSync(r.file, 'utf8')), ['first', 'from-a', 'c1'], 'the stale copy was repaired');
  await acked(() => addMode(r, b, 'b1'));
  assert.deepEqual(slugsIn(readFileSync(r.file, 'utf8')), ['first', 'from-a', 'c1', 'b1']);
});

test('a writer stalled past its lease before its commit writes nothing and is told so (-32004, written: false, retryable)', { skip: redisMissing }, async (t) => {
  const r = await rig(t);
  const s = stallOnce('commit');
  const a = r.replica('replica-a', s.stall);
  const b = r.replica('replica-b');
  const looks = watchParses(t, r.file);
  const stale = addMode(r, a, 'from-a').then(() => null, (err: unknown) => err);
  await s.reached.wait();
  for (const slug of ['b1', 'b2']) await acked(() => addMode(r, b, slug));
  s.go.open();
  assertNotWritten(await stale);
  await looks.stop();
  assert.deepEqual(slugsIn(readFileSync(r.file, 'utf8')), ['b1', 'b2']);
});

test('an import stalled past its lease before its rename: the rules folders and modes of both writers are there', { skip: redisMissing }, async (t) => {
  const r = await rig(t);
  const s = stallOnce('rename');
  const a = r.replica('replica-a', s.stall);
  const b = r.replica('replica-b');
  const stale = importOne(r, a).then(() => null, (err: unknown) => err);
  await s.reached.wait();
  await acked(() => addMode(r, b, 'b1'));
  s.go.open();
  assert.equal(await stale, null, 'the import counted: its record was committed before the stall');
  const slugs = slugsIn(readFileSync(r.file, 'utf8'));
  assert.ok(slugs.includes('b1') && slugs.includes('imported'), `both writes kept: ${slugs.join(',')}`);
  assert.equal(readFileSync(join(r.rooDir, 'rules-imported', 'rules.md'), 'utf8'), 'Be brief.');
});

test('an import stalled past its lease before its commit writes nothing; the next turn undoes its journal and staged folders', { skip: redisMissing }, async (t) => {
  const r = await rig(t);
  const s = stallOnce('commit');
  const a = r.replica('replica-a', s.stall);
  const b = r.replica('replica-b');
  const stale = importOne(r, a).then(() => null, (err: unknown) => err);
  await s.reached.wait();
  assert.ok(existsSync(`${r.file}.journal`), 'the journal names the write before it is recorded');
  await acked(() => addMode(r, b, 'b1'));
  s.go.open();
  assertNotWritten(await stale);
  await acked(() => addMode(r, b, 'b2'));
  assert.deepEqual(slugsIn(readFileSync(r.file, 'utf8')), ['b1', 'b2']);
  assert.equal(existsSync(`${r.file}.journal`), false, 'the refused write\'s journal was undone');
  assert.deepEqual(readdirSync(r.rooDir).filter((n) => n.includes('rules')), [], 'no rules folder, staged or live');
});

test('a late import does not replace the rules a later import of the same mode put there', { skip: redisMissing }, async (t) => {
  const r = await rig(t);
  const s = stallOnce('rename');
  const stale = importOne(r, r.replica('replica-a', s.stall), 'Old rules.').then(() => null, (err: unknown) => err);
  await s.reached.wait();
  // B's turn finishes A's recorded import first, then imports the mode again with new rules.
  await acked(() => importOne(r, r.replica('replica-b'), 'New rules.'));
  s.go.open();
  assert.equal(await stale, null, 'the late import counted (it was recorded, and finished by the next turn)');
  assert.equal(readFileSync(join(r.rooDir, 'rules-imported', 'rules.md'), 'utf8'), 'New rules.');
  assert.deepEqual(readdirSync(r.rooDir).filter((n) => n.includes('rules')), ['rules-imported'], 'nothing staged or set aside is left');
  assert.equal(existsSync(`${r.file}.journal`), false);
});

test('a late delete_mode with remove_rules does not remove the rules folder a later import made', { skip: redisMissing }, async (t) => {
  const r = await rig(t);
  await acked(() => importOne(r, r.replica('replica-c'), 'First rules.'));
  const s = stallOnce('rename');
  const ctx = (leases: SharedLeases) => ({
    catalogue: new Catalogue({ modes: [] }), gate: async () => undefined,
    scopes: { projectRoot: r.dir, configDir: join(r.dir, 'config'), globalModesFile: null, homeDir: r.dir, leases },
  });
  const stale = deleteMode(ctx(r.replica('replica-a', s.stall)), 'imported', 'project', true).then((out) => out, (err: unknown) => err);
  await s.reached.wait();
  await acked(() => importOne(r, r.replica('replica-b'), 'Imported again.'));
  s.go.open();
  const out = await stale;
  assert.ok(!(out instanceof Error), String(out));
  assert.equal((out as { removed_rules_dir: string }).removed_rules_dir, '', 'the folder was not removed, and the answer says so');
  assert.equal(readFileSync(join(r.rooDir, 'rules-imported', 'rules.md'), 'utf8'), 'Imported again.');
  assert.deepEqual(slugsIn(readFileSync(r.file, 'utf8')), ['imported']);
});

test('a mode-set pointer write stalled past its lease before its rename does not undo a later selection', { skip: redisMissing }, async (t) => {
  const r = await rig(t);
  const s = stallOnce('rename');
  const a = r.replica('replica-a', s.stall);
  const b = r.replica('replica-b');
  const p = new ModesetPaths(r.dir, '.task_orchestrator', join(r.dir, 'config'));
  const select = (leases: SharedLeases, name: string): Promise<void> =>
    new ModesetLock({ leases }).run(p.lock, () => writePointer(p, name), undefined, () => p.ensureDir(p.base));
  const stale = select(a, 'a.yaml').then(() => null, (err: unknown) => err);
  await s.reached.wait();
  await acked(() => select(b, 'b.yaml'));
  s.go.open();
  assert.equal(await stale, null, 'the earlier selection counted (it was committed first)');
  // B's selection came later and was acknowledged: it is the one in force.
  assert.equal((await readPointer(p)).name, 'b.yaml');
  assert.ok(r.warnings.some((w) => /stale/.test(w) && /active_mode_set/.test(w)), `a warning tells of the repair: ${r.warnings.join('')}`);
});

for (const meanwhile of ['a hand edit of the file', 'the store forgetting everything (FLUSHALL)'] as const) {
  test(`a write recorded before its stall but replaced by a change not built on it (${meanwhile}) is told it did not count`, { skip: redisMissing }, async (t) => {
    const r = await rig(t);
    const s = stallOnce('rename');
    const a = r.replica('replica-a', s.stall);
    const b = r.replica('replica-b');
    await addMode(r, b, 'first');
    const stale = addMode(r, a, 'from-a').then(() => null, (err: unknown) => err);
    await s.reached.wait();
    if (meanwhile === 'the store forgetting everything (FLUSHALL)') await r.client.command('FLUSHALL');
    else writeFileSync(r.file, readFileSync(r.file, 'utf8').replace('The first role.', 'Edited by hand.'));
    await acked(() => addMode(r, b, 'b1'));
    s.go.open();
    const err = await stale;
    assert.ok(err instanceof ValidationError, `a -32004 answer, got ${String(err)}`);
    assert.deepEqual(
      { type: (err.data as Record<string, unknown>).error_type, written: (err.data as Record<string, unknown>).written, retryable: (err.data as Record<string, unknown>).retryable },
      { type: 'superseded', written: false, retryable: true }, JSON.stringify(err.data));
    // Its late rename was undone: the file holds the later change, which was acknowledged.
    assert.deepEqual(slugsIn(readFileSync(r.file, 'utf8')), ['first', 'b1']);
    if (meanwhile === 'a hand edit of the file') assert.match(readFileSync(r.file, 'utf8'), /Edited by hand\./);
    assert.ok(r.warnings.some((w) => /repaired .*\.roomodes: it held a stale copy/.test(w)), r.warnings.join(''));
  });
}

test('a change of several mode-set files refused after some were written says which (written: true, complete: false)', { skip: redisMissing }, async (t) => {
  const r = await rig(t);
  const s = stallOnce('commit', 2);
  const a = r.replica('replica-a', s.stall);
  const p = new ModesetPaths(r.dir, '.task_orchestrator', join(r.dir, 'config'));
  const run = (leases: SharedLeases, fn: () => Promise<void>): Promise<void> => new ModesetLock({ leases }).run(p.lock, fn, undefined, () => p.ensureDir(p.roles));
  const restore = run(a, async () => {
    await replaceFile(join(p.roles, 'one.yaml'), 'customModes: []\n');
    await replaceFile(join(p.roles, 'two.yaml'), 'customModes: []\n');
  }).then(() => null, (err: unknown) => err);
  await s.reached.wait();
  // Another replica's turn comes in once A's lease ran out.
  await run(r.replica('replica-b'), async () => undefined);
  s.go.open();
  const err = await restore;
  assert.ok(err instanceof ValidationError, String(err));
  assert.deepEqual(
    { written: (err.data as Record<string, unknown>).written, complete: (err.data as Record<string, unknown>).complete, files: (err.data as Record<string, unknown>).files_written },
    { written: true, complete: false, files: [join(p.roles, 'one.yaml')] });
  assert.equal(existsSync(join(p.roles, 'two.yaml')), false);
});

test('a hand edit of the mode file is taken as it is by the next write, not repaired back', { skip: redisMissing }, async (t) => {
  const r = await rig(t);
  const b = r.replica('replica-b');
  await addMode(r, b, 'one');
  await addMode(r, b, 'two');
  writeFileSync(r.file, `${readFileSync(r.file, 'utf8').replace(/The two role\./, 'Edited by hand.')}`);
  await addMode(r, b, 'three');
  const text = readFileSync(r.file, 'utf8');
  assert.match(text, /Edited by hand\./);
  assert.deepEqual(slugsIn(text), ['one', 'two', 'three']);
  assert.equal(r.warnings.filter((w) => /stale/.test(w)).length, 0, `no repair: ${r.warnings.join('')}`);
});

test('after the store forgets everything (FLUSHALL), the file is taken as it is and writes go on', { skip: redisMissing }, async (t) => {
  const r = await rig(t);
  const b = r.replica('replica-b');
  await addMode(r, b, 'one');
  await r.client.command('FLUSHALL');
  await addMode(r, b, 'two');
  assert.deepEqual(slugsIn(readFileSync(r.file, 'utf8')), ['one', 'two']);
});
