import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../src/log.js';
import { RpcError } from '../../src/rpc/errors.js';
import { LocalSessionStore } from '../../src/tasks/local-store.js';
import { SessionFiles } from '../../src/tasks/session-files.js';
import { contractCases } from './session-store-contract.js';

const T0 = Date.parse('2025-03-01T00:00:00.000Z');

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const log: Logger & { warnings: string[] } = {
    warnings,
    debug() {}, info() {}, notice() {}, error() {},
    warn(message: string) { warnings.push(message); },
    child() { return log; },
  };
  return log;
}

function setup(t: { after(fn: () => void | Promise<void>): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'tasks-store-'));
  const clock = { t: T0 };
  const stores: LocalSessionStore[] = [];
  const open = (log: Logger = recordingLogger(), timeoutSeconds = 60): LocalSessionStore => {
    const s = new LocalSessionStore({ timeoutSeconds, cleanupIntervalSeconds: 0, persistenceDir: dir, log, now: () => clock.t });
    stores.push(s);
    return s;
  };
  t.after(async () => {
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, clock, open };
}

const code = (n: number) => (err: unknown) => {
  assert.ok(err instanceof RpcError, `expected an RpcError, got ${String(err)}`);
  assert.equal(err.code, n, err.message);
  return true;
};

/** A pid that belonged to a process which has exited. */
const deadPid = (): number => {
  const r = spawnSync(process.execPath, ['-e', '']);
  assert.ok(r.pid !== undefined && r.pid > 0);
  return r.pid;
};

test('a session written by one store is read, changed and seen back across two stores on one directory', async (t) => {
  const { open } = setup(t);
  const a = open();
  const b = open();
  await Promise.all([a.init(), b.init()]);
  const s = await a.create({ modeSlug: 'code', initialMessage: 'start' });
  const seen = await b.get(s.session_id);
  assert.deepEqual(seen.task, s.task);
  await b.switchMode(s.session_id, 'debug', 'a crash');
  const back = await a.get(s.session_id);
  assert.equal(back.task.mode_slug, 'debug');
  assert.deepEqual(back.task.mode_history.map((h) => [h.from, h.to, h.reason]), [['code', 'debug', 'a crash']]);
  await a.complete(s.session_id, 'completed', 'fixed');
  await assert.rejects(b.switchMode(s.session_id, 'ask'), code(-32004));
});

test('a child created in one store shows in the parent read by the other', async (t) => {
  const { open } = setup(t);
  const a = open();
  const b = open();
  const parent = await a.create({ modeSlug: 'orchestrator' });
  const child = await b.create({ modeSlug: 'code', parentSessionId: parent.session_id });
  const h = await a.hierarchy(parent.session_id);
  assert.deepEqual(h.children.map((c) => c.session_id), [child.session_id]);
  assert.deepEqual((await a.get(parent.session_id)).task.child_task_ids, [child.task.task_id]);
  const r = await a.complete(parent.session_id, 'cancelled', undefined, true);
  assert.deepEqual(r.cancelledChildren.map((c) => c.session_id), [child.session_id]);
  assert.equal((await b.get(child.session_id)).task.state, 'cancelled');
});

test('concurrent changes from two stores to one session are never lost', async (t) => {
  const { open } = setup(t);
  const a = open();
  const b = open();
  const s = await a.create({ modeSlug: 'code' });
  const work: Promise<unknown>[] = [];
  for (let i = 0; i < 15; i++) {
    work.push(a.switchMode(s.session_id, `a${i}`), b.switchMode(s.session_id, `b${i}`));
  }
  await Promise.all(work);
  assert.equal((await a.get(s.session_id)).task.mode_history.length, 30);
});

test('restart restores live sessions, drops expired ones with their files, and remembers them as expired', async (t) => {
  const { dir, clock, open } = setup(t);
  const a = open(undefined, 100);
  const keep = await a.create({ modeSlug: 'code' });
  const drop = await a.create({ modeSlug: 'ask' });
  clock.t += 60_000;
  await a.get(keep.session_id); // an access that only touches the file's mtime
  await a.close();
  clock.t += 60_000;
  const b = open(undefined, 100);
  assert.deepEqual(await b.init(), { restored: 1, expired: 1, corrupt: 0 });
  assert.equal(existsSync(join(dir, `${drop.session_id}.json`)), false);
  await assert.rejects(b.get(drop.session_id), code(-32003));
  assert.equal((await b.get(keep.session_id)).task.mode_slug, 'code');
});

test('an access in one store keeps the session alive for another store that holds an older copy', async (t) => {
  const { clock, open } = setup(t);
  const a = open();
  const b = open();
  const s = await a.create({ modeSlug: 'code' });
  await b.get(s.session_id);
  clock.t += 50_000;
  await a.get(s.session_id);
  clock.t += 50_000;
  assert.equal(await b.sweep(), 0);
  assert.equal((await b.get(s.session_id)).last_accessed, new Date(T0 + 100_000).toISOString());
});

test('a session swept by one store answers -32003 in the other', async (t) => {
  const { dir, clock, open } = setup(t);
  const a = open();
  const b = open();
  await b.init();
  const s = await a.create({ modeSlug: 'code' }); // b has never loaded it: its sweep finds the file
  clock.t += 61_000;
  assert.equal(await b.sweep(), 1);
  assert.equal(existsSync(join(dir, `${s.session_id}.json`)), false);
  await assert.rejects(a.get(s.session_id), code(-32003));
  await assert.rejects(b.get(s.session_id), code(-32003));
});

test('a corrupt or wrongly shaped file is skipped with a warning and left in place', async (t) => {
  const { dir, open } = setup(t);
  const a = open();
  const good = await a.create({ modeSlug: 'code' });
  const torn = 'ses_aaaaaaaaaaaaaaaaaaaaaaaa';
  const wrong = 'ses_bbbbbbbbbbbbbbbbbbbbbbbb';
  const mismatched = 'ses_cccccccccccccccccccccccc';
  writeFileSync(join(dir, `${torn}.json`), '{"format":1,"session_id":"ses_aaaa');
  writeFileSync(join(dir, `${wrong}.json`), JSON.stringify({ format: 1, session_id: wrong, last_accessed: 'x', task: {} }));
  writeFileSync(join(dir, `${mismatched}.json`), readFileSync(join(dir, `${good.session_id}.json`)));
  const log = recordingLogger();
  const b = open(log);
  assert.deepEqual(await b.init(), { restored: 1, expired: 0, corrupt: 3 });
  assert.equal(log.warnings.length, 3);
  assert.ok(log.warnings.some((w) => w.includes(torn)));
  for (const id of [torn, wrong, mismatched]) {
    assert.equal(existsSync(join(dir, `${id}.json`)), true);
    await assert.rejects(b.get(id), code(-32002));
  }
});

test('temp files left by a dead writer are ignored and removed at start; a live writer\'s are kept', async (t) => {
  const { dir, open } = setup(t);
  const a = open();
  const s = await a.create({ modeSlug: 'code' });
  const dead = deadPid();
  const leftover = `.${s.session_id}.${dead}.0123abcd.tmp`;
  const orphan = `.ses_dddddddddddddddddddddddd.${dead}.99.tmp`;
  const inFlight = `.ses_eeeeeeeeeeeeeeeeeeeeeeee.${process.pid}.77.tmp`;
  writeFileSync(join(dir, leftover), '{"format":1,"session_id":"');
  writeFileSync(join(dir, orphan), '{}');
  writeFileSync(join(dir, inFlight), '{}');
  const b = open();
  assert.deepEqual(await b.init(), { restored: 1, expired: 0, corrupt: 0 });
  const names = readdirSync(dir);
  assert.equal(names.includes(leftover), false);
  assert.equal(names.includes(orphan), false);
  assert.equal(names.includes(inFlight), true);
  assert.equal((await b.get(s.session_id)).task.mode_slug, 'code');
  await assert.rejects(b.get('ses_dddddddddddddddddddddddd'), code(-32002));
});

test('a lock left by a dead process is broken instead of blocking the session', async (t) => {
  const { dir, open } = setup(t);
  const a = open();
  const s = await a.create({ modeSlug: 'code' });
  writeFileSync(join(dir, `.${s.session_id}.lock`), `${deadPid()}\n`);
  assert.equal((await a.switchMode(s.session_id, 'ask')).oldMode, 'code');
  assert.equal(existsSync(join(dir, `.${s.session_id}.lock`)), false);
});

test('a stale lock met by two stores at once is taken over once, and no change is lost', async (t) => {
  const { dir, open } = setup(t);
  const logA = recordingLogger();
  const logB = recordingLogger();
  const a = open(logA);
  const b = open(logB);
  const s = await a.create({ modeSlug: 'code' });
  writeFileSync(join(dir, `.${s.session_id}.lock`), `${deadPid()}\n`);
  const work: Promise<unknown>[] = [];
  for (let i = 0; i < 10; i++) work.push(a.switchMode(s.session_id, `a${i}`), b.switchMode(s.session_id, `b${i}`));
  await Promise.all(work);
  assert.equal((await a.get(s.session_id)).task.mode_history.length, 20);
  const breaks = [...logA.warnings, ...logB.warnings].filter((w) => w.includes('breaking a stale lock'));
  assert.equal(breaks.length, 1, JSON.stringify(breaks));
  await a.flush();
  await b.flush();
  assert.deepEqual(readdirSync(dir), [`${s.session_id}.json`]);
});

test('lock and temp leftovers of every kind from dead processes are removed at start', async (t) => {
  const { dir, open } = setup(t);
  const a = open();
  const s = await a.create({ modeSlug: 'code' });
  await a.flush();
  const dead = deadPid();
  const id = s.session_id;
  const leftovers = [
    `.${id}.json.${dead}.0123456789ab.tmp`,
    `.${id}.lock.${dead}.0123456789ab.tmp`,
    `.${id}.lock.stale.${dead}.0123456789ab.tmp`,
    `.${id}.lock.breaking.${dead}.0123456789ab.tmp`,
    `.${id}.lock.breaking`,
    `.${id}.lock`,
  ];
  for (const name of leftovers) writeFileSync(join(dir, name), `${dead}\n`);
  const b = open();
  assert.deepEqual(await b.init(), { restored: 1, expired: 0, corrupt: 0 });
  assert.deepEqual(readdirSync(dir), [`${id}.json`]);
});

test('ids that are not ses_ plus 24 hex never reach the filesystem', async (t) => {
  const { dir, open } = setup(t);
  const files = new SessionFiles(dir, recordingLogger());
  const a = open();
  for (const bad of ['../outside', 'ses_../../etc/passwd', `ses_${'0'.repeat(23)}`, `ses_${'A'.repeat(24)}`, `ses_${'0'.repeat(24)}.json`]) {
    await assert.rejects(files.read(bad), code(-32002));
    await assert.rejects(files.lock(bad), code(-32002));
    await assert.rejects(a.get(bad), code(-32002));
    await assert.rejects(async () => a.create({ modeSlug: 'code', parentSessionId: bad }), code(-32002));
  }
  assert.deepEqual(readdirSync(dir), []);
});

test('each acknowledged change is in the session file, and no temp or lock file stays behind', async (t) => {
  const { dir, open } = setup(t);
  const a = open();
  const s = await a.create({ modeSlug: 'code', initialMessage: 'hi' });
  await a.switchMode(s.session_id, 'architect');
  const onDisk = JSON.parse(readFileSync(join(dir, `${s.session_id}.json`), 'utf8')) as { session_id: string; task: { mode_slug: string } };
  assert.equal(onDisk.session_id, s.session_id);
  assert.equal(onDisk.task.mode_slug, 'architect');
  await a.flush();
  assert.deepEqual(readdirSync(dir), [`${s.session_id}.json`]);
});

test('writes of one session land in call order', async (t) => {
  const { dir } = setup(t);
  const files = new SessionFiles(dir, recordingLogger());
  const a = new LocalSessionStore({ timeoutSeconds: 60, cleanupIntervalSeconds: 0, persistenceDir: null, log: recordingLogger(), now: () => T0 });
  const s = await a.create({ modeSlug: 'm0' });
  const { sessionFromFile } = await import('../../src/tasks/session-files.js');
  const snapshots = [];
  for (let i = 0; i < 20; i++) {
    const r = sessionFromFile(JSON.stringify({ format: 1, session_id: s.session_id, created_at: s.created_at, last_accessed: s.last_accessed, task: { ...s.task, mode_slug: `m${i}` } }), s.session_id, Number.NaN);
    assert.notEqual(typeof r, 'string');
    snapshots.push(r as Exclude<typeof r, string>);
  }
  await Promise.all(snapshots.map((r) => files.write(r)));
  const r = await files.read(s.session_id);
  assert.equal(r.kind === 'ok' && r.record.task.mode, 'm19');
});

// The behaviour every store shares (test/unit/session-store-contract.ts), on the store with a folder.
const contract = contractCases(async (t, clock, o) => {
  const dir = mkdtempSync(join(tmpdir(), 'tasks-store-contract-'));
  const store = new LocalSessionStore({
    timeoutSeconds: o.timeoutSeconds ?? 60, cleanupIntervalSeconds: o.cleanupIntervalSeconds ?? 0, persistenceDir: dir, log: recordingLogger(), now: () => clock.t,
  });
  t.after(async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); });
  return store;
});
for (const [name, run] of contract) test(`with a folder: ${name}`, run);

test('a sessions folder the OS will not let us make is an app error naming it and the reason, not -32603', async (t) => {
  const { dir } = setup(t);
  // A file where the folder should be refuses the write even for root (ENOTDIR).
  writeFileSync(join(dir, 'plain'), 'x');
  const where = join(dir, 'plain', 'sessions');
  const files = new SessionFiles(where, recordingLogger());
  await assert.rejects(files.ensureDir(), (err: unknown) => {
    assert.ok(err instanceof RpcError);
    assert.equal(err.code, -32004);
    assert.equal(err.message, `cannot create the folder ${where}: a part of the path is a file, not a folder (ENOTDIR)`);
    assert.deepEqual([(err.data as Record<string, unknown>).path, (err.data as Record<string, unknown>).os_error], [where, 'ENOTDIR']);
    return true;
  });
});
