// Degrade, don't refuse (issue 35 §4), through the built server on a real redis-server: with the
// store stopped, a new legacy session is still accepted as a session of this replica alone, serves
// what needs no shared state and answers the task tools "retry later"; once the store is back, new
// sessions are recorded there again and the local one goes on. The same server shows that a
// password given with --store is warned about once (§7).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RedisClient } from '../../src/redis/client.js';
import { ownRedisMissing, startRedis, within } from '../redis-server.js';
import { until } from '../replicas.js';
import { tempDir } from './harness.js';
import { startHttp, type HttpServer } from './http-harness.js';
import { call, legacyCall, nextId, ok, type Outcome } from './replica-calls.js';

const PASSWORD = 'degrade-test-pw';

/** initialize + notifications/initialized on `s`; the session id (asserted 200 and 202). */
async function initialize(s: HttpServer): Promise<string> {
  const init = await s.post({ jsonrpc: '2.0', id: nextId(), method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'degrade', version: '1' } } });
  assert.equal(init.status, 200, `initialize: ${init.body}`);
  const sid = init.headers['mcp-session-id'];
  assert.ok(typeof sid === 'string', 'a session id');
  assert.equal((await s.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid })).status, 202);
  return sid;
}

/** A failure that a retry may cure: the task tools' answer while the store is away. */
function retryable(o: Outcome, what: string): void {
  assert.equal(o.ok, false, `${what} fails while the store is down`);
  if (o.ok) return;
  assert.equal(o.data.retryable, true, `${what}: data.retryable is true (${o.code} ${o.message} ${JSON.stringify(o.data)})`);
  assert.match(o.message, /Redis|store/i, `${what} names the store: ${o.message}`);
}

const count = (text: string, re: RegExp): number => text.split('\n').filter((l) => re.test(l)).length;

test('with the store stopped a replica accepts legacy sessions as local ones (modes, resources and prompts work, task tools retryable), and shares new sessions again once it is back', { skip: ownRedisMissing }, async (t) => {
  const redis = await startRedis(t, { args: ['--requirepass', PASSWORD] });
  const url = `redis://:${PASSWORD}@127.0.0.1:${redis.port}`;
  const project = tempDir(t, 'rms-degrade-');
  const s = await startHttp(t, ['--store', url, '--project-root', project]);
  const probe = new RedisClient({ url });
  t.after(() => probe.close());
  await within(10_000, 'a Redis connection', probe.connected());
  try {
    // §7: the password on the command line is warned about once, the URL and env named.
    assert.equal(count(s.stderr, /--store carries a password/), 1, 'one warning about the password in the command line');
    assert.match(s.stderr, /visible to every user of this machine \(ps\); give the URL in ROO_MODES_STORE/);
    assert.ok(!s.stderr.includes(PASSWORD), 'the password itself is never printed');

    const shared = await initialize(s);
    assert.equal(await probe.command('EXISTS', `rms:mcp:{${shared}}`), 1, 'with the store up, a new session is recorded there');

    await redis.stop();
    await until('the replica to notice the store is gone', () => (/lost the store/.test(s.stderr) ? true : undefined), 10_000);

    // A 2025-11-25 client can still start a session, and use what needs no shared state.
    const started = Date.now();
    const local = await initialize(s);
    assert.ok(Date.now() - started < 3000, 'initialize does not wait for a command timeout: the store is known to be down');
    const h = { 'mcp-session-id': local };
    ok(await legacyCall(s, local, 'list_modes'), 'list_modes in a local session');
    ok(await legacyCall(s, local, 'get_mode_info', { mode_slug: 'code' }), 'get_mode_info in a local session');
    for (const method of ['resources/list', 'prompts/list', 'tools/list']) {
      const r = await s.post({ jsonrpc: '2.0', id: nextId(), method, params: {} }, h);
      assert.equal(r.status, 200, `${method}: ${r.body}`);
      assert.ok(r.messages[0]?.result, `${method} answers a result: ${r.body.slice(0, 300)}`);
    }
    const read = await s.post({ jsonrpc: '2.0', id: nextId(), method: 'resources/read', params: { uri: 'mode://code' } }, h);
    assert.ok(read.messages[0]?.result, `resources/read mode://code: ${read.body.slice(0, 300)}`);
    const prompt = await s.post({ jsonrpc: '2.0', id: nextId(), method: 'prompts/get', params: { name: 'code' } }, h);
    assert.equal(prompt.status, 200, prompt.body.slice(0, 300));
    // The session's own state lives in this process now: a log level is taken without the store.
    const level = await s.post({ jsonrpc: '2.0', id: nextId(), method: 'logging/setLevel', params: { level: 'debug' } }, h);
    assert.deepEqual(level.messages[0]?.result, {}, `logging/setLevel in a local session: ${level.body}`);
    // A GET stream opens here too (kept in this process, not the event log).
    const get = await s.stream('GET', h);
    assert.equal(get.res.statusCode, 200, 'the GET stream of a local session opens');
    get.close();
    // What needs the store answers "retry later", in both eras.
    retryable(await legacyCall(s, local, 'create_task', { mode_slug: 'code' }), 'create_task in a local session');
    retryable(await call(s, 'create_task', { mode_slug: 'code' }), 'create_task in 2026-07-28');
    ok(await call(s, 'list_modes'), 'list_modes in 2026-07-28');
    // The session made before the outage, held here, goes on serving too.
    ok(await legacyCall(s, shared, 'list_modes'), 'list_modes in the shared session held here');
    // A second local session is not logged again: one line per outage.
    await initialize(s);
    assert.equal(count(s.stderr, /kept on this replica alone/), 1, `the degraded mode is logged once:\n${s.stderr}`);

    await redis.start();
    await within(10_000, 'the probe back', probe.connected());
    // The replica reconnects by itself; then new sessions are shared again.
    const again = await until('a new session recorded in the store', async () => {
      const sid = await initialize(s);
      return (await probe.command('EXISTS', `rms:mcp:{${sid}}`)) === 1 ? sid : undefined;
    }, 15_000, 100);
    ok(await legacyCall(s, again, 'create_task', { mode_slug: 'code' }), 'create_task in a shared session once the store is back');
    assert.match(s.stderr, /the store is back: new legacy MCP sessions are shared/);
    // The local session stays on this replica (its id has no record) and keeps working, task tools included.
    assert.equal(await probe.command('EXISTS', `rms:mcp:{${local}}`), 0, 'the local session was never recorded');
    ok(await legacyCall(s, local, 'list_modes'), 'list_modes in the local session after the store is back');
    ok(await legacyCall(s, local, 'create_task', { mode_slug: 'code' }), 'create_task in the local session once the store is back');
    const ended = await s.send('DELETE', undefined, h);
    assert.equal(ended.status, 200, 'DELETE ends the local session');
    const gone = await s.post({ jsonrpc: '2.0', id: nextId(), method: 'tools/call', params: { name: 'list_modes', arguments: {} } }, h);
    assert.equal(gone.status, 404, `the ended local session answers 404: ${gone.body}`);
  } catch (err) { t.diagnostic(s.stderr.slice(-4000)); throw err; }
});
