import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { SessionTable } from '../../src/tasks/table.js';
import {
  addChildTask, finishTask, makeSession, newTask, randomId, switchTaskMode, type SessionRecord, type TaskRecord,
} from '../../src/tasks/task.js';

const T0 = Date.parse('2025-01-02T03:04:05.678Z');
const fresh = (over: { taskId?: string; mode?: string; message?: string; at?: number } = {}): SessionRecord => makeSession({
  id: randomId('ses_'),
  task: newTask({ id: over.taskId ?? randomId('task_'), mode: over.mode ?? 'code', at: over.at ?? T0, initialMessage: over.message }),
  lastAccessed: (over.at ?? T0) + 5, parentSession: undefined, childSessions: undefined,
});
const withTask = (rec: SessionRecord, task: TaskRecord, more: Partial<SessionRecord> = {}): SessionRecord => makeSession({ ...rec, task, ...more });

test('a fresh session comes back field for field, with or without its initial message', () => {
  const table = new SessionTable();
  const recs = [fresh({ message: 'Investigate the failing build' }), fresh(), fresh({ message: '' }), fresh({ message: 'émoji 🚀', mode: 'architect', at: T0 + 0.5 })];
  for (const r of recs) table.set(r.id, r);
  assert.equal(table.size, recs.length);
  for (const r of recs) assert.deepEqual(table.get(r.id), r);
});

test('task ids at the edges of the packed number range come back exactly', () => {
  const table = new SessionTable();
  for (const taskId of ['task_000000000000000000000000', 'task_ffffffffffffffffffffffff', 'task_000000000001ffffffffffff', 'task_fffffffffffe000000000000']) {
    const r = fresh({ taskId });
    table.set(r.id, r);
    assert.equal(table.get(r.id)?.task.id, taskId);
  }
});

test('sessions with history, relatives, metadata or a finished task are kept whole and come back equal', () => {
  const table = new SessionTable();
  const a = fresh({ message: 'hi' });
  const b = fresh();
  const recs = [
    withTask(a, switchTaskMode(a.task, 'debug', 'needs a debugger', T0 + 10)),
    withTask(a, finishTask(a.task, 'completed', 'done', T0 + 20)),
    withTask(a, addChildTask(a.task, b.task.id), { childSessions: [b.id] }),
    withTask(b, newTask({ id: b.task.id, mode: 'code', at: T0, parentId: a.task.id }), { parentSession: a.id }),
    withTask(b, { ...b.task, metadata: { k: 1 } }),
  ];
  for (const r of recs) {
    table.set(r.id, r);
    assert.deepEqual(table.get(r.id), r);
  }
  // From whole back to packed: nothing of the whole record lingers.
  table.set(a.id, a);
  assert.deepEqual(table.get(a.id), a);
});

test('get hands out copies; touch is the one way to record an access, for both forms', () => {
  const table = new SessionTable();
  const packed = fresh({ message: 'x' });
  const whole = withTask(packed, switchTaskMode(packed.task, 'ask', undefined, T0 + 1));
  const other = { ...whole, id: randomId('ses_') };
  table.set(packed.id, packed);
  table.set(other.id, other);
  const copy = table.get(packed.id)!;
  copy.lastAccessed = T0 + 999;
  assert.equal(table.get(packed.id)?.lastAccessed, packed.lastAccessed);
  assert.equal(table.touch(packed.id, T0 + 50), true);
  assert.equal(table.touch(other.id, T0 + 60), true);
  assert.equal(table.get(packed.id)?.lastAccessed, T0 + 50);
  assert.equal(table.get(other.id)?.lastAccessed, T0 + 60);
  assert.equal(table.get(other.id)?.task.history?.[0]?.to, 'ask');
  assert.equal(table.touch(randomId('ses_'), T0), false);
});

test('deleted slots are reused without mixing sessions up, and the walk lists every id with its access', () => {
  const table = new SessionTable();
  const recs = Array.from({ length: 50 }, (_, i) => fresh({ message: `m${i}`, mode: `mode-${i % 7}`, at: T0 + i }));
  for (const r of recs) table.set(r.id, r);
  for (const r of recs.slice(0, 25)) assert.equal(table.delete(r.id), true);
  assert.equal(table.delete(recs[0]!.id), false);
  assert.equal(table.get(recs[0]!.id), undefined);
  assert.equal(table.has(recs[0]!.id), false);
  const later = Array.from({ length: 30 }, (_, i) => fresh({ message: i % 2 === 0 ? undefined : `n${i}`, at: T0 + 100 + i }));
  for (const r of later) table.set(r.id, r);
  const live = [...recs.slice(25), ...later];
  assert.equal(table.size, live.length);
  for (const r of live) assert.deepEqual(table.get(r.id), r);
  const stale = (last: number): boolean => last >= T0 + 100 + 5 && last % 2 === 0;
  // Slot order, not insertion order: freed slots were reused. Every slot is visited once.
  const walked = [...table.walk(stale)];
  assert.equal(walked.length, live.length, 'no slot is free after the reuse, so one visit per session');
  assert.deepEqual(walked.filter((id) => id !== null).sort(), live.filter((r) => stale(r.lastAccessed)).map((r) => r.id).sort());
});

test('deleting during the walk is allowed and every remaining id is still visited', () => {
  const table = new SessionTable();
  const recs = Array.from({ length: 10 }, (_, i) => fresh({ at: T0 + i }));
  for (const r of recs) table.set(r.id, r);
  const seen: string[] = [];
  for (const id of table.walk(() => true)) {
    seen.push(id!);
    table.delete(id!);
  }
  assert.deepEqual(seen, recs.map((r) => r.id));
  assert.equal(table.size, 0);
});

test('sessions whose ids share the index hash are told apart by the full id, also after deletions', () => {
  const table = new SessionTable();
  // The slot index hashes the last 8 hex digits (32 bits) of the session id: all four share them.
  const ids = ['abcdef100000000012345678', 'abcdef1fffffffff12345678', 'abcdef100001000012345678', '000000000000000012345678'].map((hex) => `ses_${hex}`);
  const recs = ids.map((id, i) => makeSession({ ...fresh({ message: `m${i}`, at: T0 + i }), id }));
  for (const r of recs) table.set(r.id, r);
  assert.equal(table.size, 4);
  for (const r of recs) assert.deepEqual(table.get(r.id), r);
  assert.match(ids[0]!, /^ses_[0-9a-f]{24}$/);
  assert.equal(table.has('ses_abcdef100000000112345678'), false);
  assert.equal(table.get('ses_abcdef100000000112345678'), undefined);
  assert.equal(table.delete(recs[2]!.id), true);
  assert.equal(table.delete(recs[0]!.id), true);
  assert.equal(table.has(recs[0]!.id), false);
  assert.deepEqual(table.get(recs[1]!.id), recs[1]);
  assert.deepEqual(table.get(recs[3]!.id), recs[3]);
  assert.equal(table.touch(recs[3]!.id, T0 + 77), true);
  assert.equal(table.get(recs[1]!.id)?.lastAccessed, recs[1]!.lastAccessed);
  const walked = (): (string | null)[] => [...table.walk(() => true)].filter((id) => id !== null); // free slots give null
  assert.deepEqual(walked().sort(), [recs[1]!.id, recs[3]!.id].sort());
  for (const r of [recs[1]!, recs[3]!]) table.delete(r.id);
  assert.equal(table.size, 0);
  assert.deepEqual(walked(), []);
});

test('anything but a session id is never found, and storing under one is refused', () => {
  const table = new SessionTable();
  const r = fresh();
  table.set(r.id, r);
  for (const bad of [r.id.toUpperCase(), `${r.id}0`, r.id.slice(0, -1), '', 'task_000000000000000000000000']) {
    assert.equal(table.has(bad), false);
    assert.equal(table.get(bad), undefined);
    assert.equal(table.touch(bad, T0), false);
    assert.equal(table.delete(bad), false);
  }
  assert.throws(() => table.set('ses_XYZ', r), TypeError);
  assert.equal(table.size, 1);
});

test('deleting the session looked up last leaves the others in place', () => {
  const table = new SessionTable();
  const ids = ['00000000000000001', '00000000000000002', '00000000000000003'].map((tail) => `ses_0123456${tail}`);
  const recs = ids.map((id, i) => makeSession({ ...fresh({ message: `m${i}`, at: T0 + i }), id }));
  for (const r of recs) table.set(r.id, r);
  for (const gone of [recs[1]!, recs[2]!]) {
    assert.equal(table.touch(gone.id, T0 + 9), true); // now the recently found one
    assert.equal(table.delete(gone.id), true);
    assert.equal(table.get(gone.id), undefined);
    assert.equal(table.touch(gone.id, T0 + 10), false);
  }
  assert.deepEqual(table.get(recs[0]!.id), recs[0]);
  assert.equal(table.size, 1);
  const again = makeSession({ ...recs[2]!, lastAccessed: T0 + 50 });
  table.set(again.id, again);
  assert.deepEqual(table.get(again.id), again);
  assert.deepEqual(table.get(recs[0]!.id), recs[0]);
});

test('a delete right after a lookup of another, absent id removes the right session', () => {
  const table = new SessionTable();
  const a = fresh({ message: 'a' });
  const b = fresh({ message: 'b' });
  table.set(a.id, a);
  table.set(b.id, b);
  assert.deepEqual(table.get(a.id), a);
  assert.equal(table.has('ses_ffffffffffffffffffffffff'), false);
  assert.equal(table.delete(a.id), true);
  assert.equal(table.has(a.id), false);
  assert.deepEqual([...table.walk(() => true)], [null, b.id], "a's slot is free now");
  assert.deepEqual(table.get(b.id), b);
});

test('sessions across several blocks of numbers come back exactly, with mode and last access read in place', () => {
  const table = new SessionTable();
  const recs = Array.from({ length: 10_000 }, (_, i) => fresh({ mode: i % 3 === 0 ? 'ask' : 'code', at: T0 + i, message: `task ${i}` }));
  for (const r of recs) table.set(r.id, r);
  for (let i = 0; i < recs.length; i += 2) table.delete(recs[i]!.id); // free slots in every block
  const again = Array.from({ length: 6_000 }, (_, i) => fresh({ mode: 'debug', at: T0 - i }));
  for (const r of again) table.set(r.id, r); // reuse the freed slots, then grow into a new block
  assert.equal(table.size, 11_000);
  for (let i = 1; i < recs.length; i += 2) {
    const r = recs[i]!;
    assert.deepEqual(table.get(r.id), r);
    assert.equal(table.modeOf(r.id), r.task.mode);
    assert.equal(table.lastAccessed(r.id), r.lastAccessed);
  }
  for (const r of again) assert.deepEqual(table.get(r.id), r);
  for (let i = 0; i < recs.length; i += 2) assert.equal(table.get(recs[i]!.id), undefined);
});
