// Issue 25 through the built server: three replicas on one Redis behind a round-robin proxy behave
// as one server. The seed workflow in both eras with consecutive calls on different replicas, mode
// changes reaching listeners on every replica once each, racing switch_mode calls serialised.
// Faults (a killed replica, Redis down, expiry) are in replicas-faults.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { redisMissing } from '../redis-server.js';
import { until } from '../replicas.js';
import { type Msg } from './harness.js';
import { HttpEndpoint, META_2026 } from './http-harness.js';
import { assertSpread, call, cluster, legacyCall, modesYaml, nextId, ok, saveFile, seedWorkflow, stderrOf } from './replica-calls.js';

test('the seed workflow in 2026-07-28 with every call on another replica than the one before', { skip: redisMissing }, async (t) => {
  const c = await cluster();
  const from = c.proxy.served.length;
  try {
    await seedWorkflow((tool, args) => call(c.client, tool, args));
  } catch (err) { t.diagnostic(stderrOf(c.replicas)); throw err; }
  assertSpread(c.proxy, from);
  c.client.assertSchemaValid();
});

test('the seed workflow in the legacy era: one Mcp-Session-Id served by every replica, and DELETE ends it on all', { skip: redisMissing }, async (t) => {
  const c = await cluster();
  const legacy = new HttpEndpoint(c.proxy.url);
  const from = c.proxy.served.length;
  try {
    const sid = await legacy.session();
    await seedWorkflow((tool, args) => legacyCall(legacy, sid, tool, args));
    const ended = await legacy.send('DELETE', undefined, { 'mcp-session-id': sid });
    assert.ok(ended.status === 200 || ended.status === 204, `DELETE answered ${ended.status}: ${ended.body}`);
    assertSpread(c.proxy, from);
    // Straight to each replica: the session is gone everywhere, not only where DELETE landed.
    for (const r of c.replicas) {
      const gone = await new HttpEndpoint(r.url).post({ jsonrpc: '2.0', id: nextId(), method: 'ping' }, { 'mcp-session-id': sid });
      assert.equal(gone.status, 404, `replica ${r.index} still serves the deleted session: ${gone.body}`);
    }
  } catch (err) { t.diagnostic(stderrOf(c.replicas)); throw err; }
  legacy.assertSchemaValid();
});

test('a .roomodes edit and a create_mode through one replica reach listeners on every replica, once each', { skip: redisMissing }, async (t) => {
  const c = await cluster();
  const roomodes = join(c.project, '.roomodes');
  // The catalogue (and its watch and fan-out subscription) is started on every replica first.
  for (const r of c.replicas) ok(await call(new HttpEndpoint(r.url), 'list_modes'), `list_modes on replica ${r.index}`);
  const uris = ['mode://alpha', 'mode://beta'];
  const listeners = await Promise.all(c.replicas.map(async (r) => {
    const direct = new HttpEndpoint(r.url);
    const id = nextId();
    direct.methodOf.set(String(id), 'subscriptions/listen');
    const stream = await direct.stream('POST', { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' }, {
      jsonrpc: '2.0', id, method: 'subscriptions/listen',
      params: { notifications: { resourcesListChanged: true, resourceSubscriptions: uris }, _meta: META_2026 },
    });
    t.after(() => stream.close());
    assert.equal(stream.res.statusCode, 200, `listen on replica ${r.index}`);
    await stream.next((m) => m.method === 'notifications/subscriptions/acknowledged', `the acknowledgement on replica ${r.index}`);
    return { replica: r.index, stream, direct };
  }));
  const count = (messages: Msg[], method: string, uri?: string): number =>
    messages.filter((m) => m.method === method && (uri === undefined || (m.params as { uri?: string } | undefined)?.uri === uri)).length;
  const everyone = async (what: string, pred: (m: Msg) => boolean): Promise<void> => {
    await Promise.all(listeners.map((l) => l.stream.next(pred, `${what} on replica ${l.replica}`, 15_000)));
  };
  const updated = (uri: string) => (m: Msg): boolean => m.method === 'notifications/resources/updated' && (m.params as { uri?: string }).uri === uri;
  // On one host every replica's watcher sees the shared folder too, so a change reaches a listener
  // both ways (its own watcher, the writer's announcement): what this proves is every listener
  // hearing of each change exactly once. The fan-out alone is shown in test/unit/store-change-fanout.test.ts.
  try {
    // 1. A hand edit of the shared file (as a user's editor on any host).
    saveFile(roomodes, modesYaml(['alpha', 'The alpha role.']));
    await everyone('alpha added', updated('mode://alpha'));
    // 2. A create_mode through the proxy: written by one replica, heard by all.
    const from = c.proxy.served.length;
    ok(await call(c.client, 'create_mode', { slug: 'beta', name: 'Beta', role_definition: 'The beta role.', groups: [{ group: 'read' }] }), 'create_mode');
    const writer = c.proxy.served[from]!.replica;
    assert.match(readFileSync(roomodes, 'utf8'), /slug: beta/, 'create_mode wrote the shared .roomodes');
    await everyone('beta created', updated('mode://beta'));
    // 3. A last change (alpha's role, no new slug) ends the run: a copy of the earlier ones
    //    delivered twice (by the watcher and again by the fan-out) comes before this one.
    saveFile(roomodes, readFileSync(roomodes, 'utf8').replace('The alpha role.', 'The new alpha role.'));
    await Promise.all(listeners.map((l) => until(`the second mode://alpha update on replica ${l.replica}`,
      () => (count(l.stream.messages, 'notifications/resources/updated', 'mode://alpha') >= 2 ? true : undefined), 15_000)));
    for (const l of listeners) {
      const got = l.stream.messages.filter((m) => m.method !== 'notifications/subscriptions/acknowledged').map((m) => `${m.method}${(m.params as { uri?: string } | undefined)?.uri ? ` ${(m.params as { uri: string }).uri}` : ''}`);
      const where = `replica ${l.replica} (create_mode went to replica ${String(writer)}): ${got.join(' | ')}`;
      // Any change of a mode announces the resource list as changed (its entries describe the modes).
      assert.equal(count(l.stream.messages, 'notifications/resources/list_changed'), 3, `one list change per change, once each, on ${where}`);
      assert.equal(count(l.stream.messages, 'notifications/resources/updated', 'mode://alpha'), 2, `alpha added then changed, once each, on ${where}`);
      assert.equal(count(l.stream.messages, 'notifications/resources/updated', 'mode://beta'), 1, `beta created once on ${where}`);
    }
  } catch (err) { t.diagnostic(stderrOf(c.replicas)); throw err; }
  for (const l of listeners) { l.stream.close(); l.direct.assertSchemaValid(); }
});

test('switch_mode on one session from two replicas at once: every acknowledged switch is in the history exactly once', { skip: redisMissing }, async (t) => {
  const c = await cluster();
  const [a, b] = [new HttpEndpoint(c.replicas[0]!.url), new HttpEndpoint(c.replicas[1]!.url)];
  const sid = ok(await call(a, 'create_task', { mode_slug: 'code', initial_message: 'race' }), 'create_task').session_id as string;
  const modes = ['architect', 'debug', 'ask', 'code'];
  const N = 40;
  const outcomes = await Promise.all(Array.from({ length: N }, (_, i) =>
    call(i % 2 === 0 ? a : b, 'switch_mode', { session_id: sid, new_mode_slug: modes[i % modes.length], reason: `race-${i}` }).then((o) => ({ i, o }))));
  const acknowledged = outcomes.filter(({ o }) => o.ok).map(({ i }) => `race-${i}`);
  const refused = outcomes.filter(({ o }) => !o.ok);
  // A refusal is allowed only as a retryable store error (contention); it must then not be in the history.
  for (const { i, o } of refused) assert.ok(!o.ok && o.data.retryable === true, `switch ${i} failed for another reason: ${JSON.stringify(o)}`);
  assert.ok(acknowledged.length >= N / 2, `most switches were acknowledged (${acknowledged.length} of ${N})`);
  const task = ok(await call(new HttpEndpoint(c.replicas[2]!.url), 'get_task_info', { session_id: sid }), 'get_task_info').task as { mode_history: { from: string; to: string; reason?: string }[]; mode_slug: string };
  const reasons = task.mode_history.map((h) => h.reason ?? '');
  try {
    for (const r of acknowledged) assert.equal(reasons.filter((x) => x === r).length, 1, `${r} is in the history once`);
    assert.equal(reasons.length, acknowledged.length, 'nothing unacknowledged or doubled is in the history');
    // The history is one chain: each switch starts where the one before it ended.
    let mode = 'code';
    for (const h of task.mode_history) { assert.equal(h.from, mode, `history chain at ${h.reason}`); mode = h.to; }
    assert.equal(task.mode_slug, mode, 'the task is in the mode the last switch chose');
  } catch (err) { t.diagnostic(JSON.stringify(task.mode_history)); throw err; }
});
