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
  assert.deepEqual([...table.lastAccesses()], live.map((r) => [r.id, r.lastAccessed]));
});

test('deleting during the walk is allowed and every remaining id is still visited', () => {
  const table = new SessionTable();
  const recs = Array.from({ length: 10 }, (_, i) => fresh({ at: T0 + i }));
  for (const r of recs) table.set(r.id, r);
  const seen: string[] = [];
  for (const [id] of table.lastAccesses()) {
    seen.push(id);
    table.delete(id);
  }
  assert.deepEqual(seen, recs.map((r) => r.id));
  assert.equal(table.size, 0);
});
