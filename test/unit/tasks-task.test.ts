import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ValidationError } from '../../src/rpc/errors.js';
import {
  addChildTask, finishTask, newTask, randomId, SESSION_ID_PATTERN, switchTaskMode, TASK_ID_PATTERN,
  TASK_STATES, taskFromJson, taskToJson,
} from '../../src/tasks/task.js';

const T0 = Date.parse('2025-01-02T03:04:05.678Z');
const base = () => newTask({ id: randomId('task_'), mode: 'code', at: T0, initialMessage: 'hello' });

test('random ids are the prefix plus 24 lowercase hex and do not repeat', () => {
  const ids = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const s = randomId('ses_');
    assert.match(s, SESSION_ID_PATTERN);
    ids.add(s);
  }
  assert.equal(ids.size, 1000);
  assert.match(randomId('task_'), TASK_ID_PATTERN);
});

test('the state table starts with active and has three final states', () => {
  assert.deepEqual([...TASK_STATES], ['active', 'completed', 'failed', 'cancelled']);
});

test('a new task is active with its initial message and empty collections on the way out', () => {
  const j = taskToJson(base());
  assert.equal(j.state, 'active');
  assert.equal(j.mode_slug, 'code');
  assert.equal(j.created_at, '2025-01-02T03:04:05.678Z');
  assert.deepEqual(j.messages, [{ role: 'user', content: 'hello', timestamp: '2025-01-02T03:04:05.678Z' }]);
  assert.deepEqual(j.child_task_ids, []);
  assert.deepEqual(j.mode_history, []);
  assert.deepEqual(j.metadata, {});
  assert.equal('completed_at' in j, false);
  assert.equal('parent_task_id' in j, false);
  assert.equal('result' in j, false);
});

test('a task without an initial message has no messages', () => {
  assert.deepEqual(taskToJson(newTask({ id: randomId('task_'), mode: 'ask', at: T0 })).messages, []);
});

test('switching modes records from, to, reason and time and leaves the old record unchanged', () => {
  const t = base();
  const s1 = switchTaskMode(t, 'architect', 'plan first', T0 + 1000);
  const s2 = switchTaskMode(s1, 'code', undefined, T0 + 2000);
  assert.equal(t.mode, 'code');
  assert.equal(t.history, undefined);
  const j = taskToJson(s2);
  assert.equal(j.mode_slug, 'code');
  assert.deepEqual(j.mode_history, [
    { from: 'code', to: 'architect', reason: 'plan first', at: '2025-01-02T03:04:06.678Z' },
    { from: 'architect', to: 'code', at: '2025-01-02T03:04:07.678Z' },
  ]);
});

test('finishing sets the state and completed_at once and records the result as an assistant message', () => {
  const done = finishTask(base(), 'completed', 'all good', T0 + 5000);
  const j = taskToJson(done);
  assert.equal(j.state, 'completed');
  assert.equal(j.completed_at, '2025-01-02T03:04:10.678Z');
  assert.equal(j.result, 'all good');
  assert.deepEqual(j.messages.at(-1), { role: 'assistant', content: 'all good', timestamp: '2025-01-02T03:04:10.678Z' });
  assert.throws(() => finishTask(done, 'failed', undefined, T0 + 6000), (err: unknown) =>
    err instanceof ValidationError && err.code === -32004 && /completed/.test(err.message));
});

test('a finished task refuses a mode switch and a new subtask, naming its state', () => {
  for (const state of ['completed', 'failed', 'cancelled'] as const) {
    const done = finishTask(base(), state, undefined, T0 + 1);
    assert.throws(() => switchTaskMode(done, 'ask', undefined, T0 + 2), (err: unknown) =>
      err instanceof ValidationError && err.message.includes(state));
    assert.throws(() => addChildTask(done, randomId('task_')), ValidationError);
  }
});

test('adding a child keeps earlier children in order', () => {
  const a = randomId('task_');
  const b = randomId('task_');
  assert.deepEqual(taskToJson(addChildTask(addChildTask(base(), a), b)).child_task_ids, [a, b]);
});

test('the JSON form reads back to an equal task', () => {
  let t = switchTaskMode(base(), 'debug', 'bug found', T0 + 10);
  t = addChildTask(t, randomId('task_'));
  t = finishTask(t, 'failed', 'gave up', T0 + 20);
  const j = taskToJson(t);
  const back = taskFromJson(JSON.parse(JSON.stringify(j)));
  assert.notEqual(typeof back, 'string');
  assert.deepEqual(taskToJson(back as Exclude<typeof back, string>), j);
});

test('reading back rejects wrong shapes with a reason instead of throwing', () => {
  const good = taskToJson(base());
  const bad: unknown[] = [
    null, [], 'x',
    { ...good, task_id: '../etc' },
    { ...good, state: 'paused' },
    { ...good, created_at: 'yesterday' },
    { ...good, messages: [{ role: 'system', content: 'x', timestamp: good.created_at }] },
    { ...good, mode_history: 'none' },
    { ...good, child_task_ids: [42] },
    { ...good, metadata: [] },
    { ...good, result: 7 },
  ];
  for (const b of bad) assert.equal(typeof taskFromJson(b), 'string', JSON.stringify(b));
});

test('the compact initial message reads and round-trips like a list, and a later message is kept as a list', () => {
  const t = base();
  const first = { role: 'user', content: 'hello', timestamp: new Date(T0).toISOString() };
  assert.deepEqual(taskToJson(t).messages, [first]);
  // Read back from its JSON (the disk form), the task gives the same JSON again.
  const back = taskFromJson(taskToJson(t));
  assert.ok(typeof back !== 'string', String(back));
  assert.deepEqual(taskToJson(back), taskToJson(t));
  // A lone user message sent after creation is not the initial message: its own time survives.
  const later = taskFromJson({ ...taskToJson(t), messages: [{ ...first, timestamp: new Date(T0 + 5).toISOString() }] });
  assert.ok(typeof later !== 'string', String(later));
  assert.equal(taskToJson(later).messages[0]!.timestamp, new Date(T0 + 5).toISOString());
  // Finishing with a result appends the assistant's message after the initial one.
  const done = taskToJson(finishTask(t, 'completed', 'all done', T0 + 9));
  assert.deepEqual(done.messages, [first, { role: 'assistant', content: 'all done', timestamp: new Date(T0 + 9).toISOString() }]);
});
