// The deployment-wide session caps through built replicas on one Redis: an initialize flood from one
// client fills store.max_mcp_sessions and no more (503 + Retry-After, the records in Redis stay at the
// cap), create_task past store.max_task_sessions is a retryable -32004, and an ended session makes room.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redisMissing, testRedis, connectedClient } from '../redis-server.js';
import { startProxy, startReplicas } from '../replicas.js';
import { tempDir } from './harness.js';
import { HttpEndpoint, type Reply } from './http-harness.js';
import { call, ok, stderrOf } from './replica-calls.js';

const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } };

test('an initialize flood from one client through two replicas stops at store.max_mcp_sessions: the rest get 503 with Retry-After and Redis holds no record past the cap', { skip: redisMissing }, async (t) => {
  const redis = await testRedis(t);
  const project = tempDir(t, 'rms-store-bounds-');
  const prefix = `rms-cap-${process.pid}:`;
  const config = join(project, 'server-config.json');
  writeFileSync(config, JSON.stringify({ store: { url: redis.url, prefix, max_mcp_sessions: 12, max_task_sessions: 4 } }));
  const replicas = await startReplicas(t, 2, { args: ['--config', config, '--project-root', project] });
  const client = new HttpEndpoint((await startProxy(t, replicas)).url);
  const probe = await connectedClient(t, { url: redis.url });
  try {
    // 40 initialize requests, 8 at a time, as a client that opens sessions and never ends them.
    const replies: Reply[] = [];
    for (let i = 0; i < 40; i += 8) replies.push(...await Promise.all(Array.from({ length: 8 }, () => client.post(INIT))));
    const accepted = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 503);
    assert.equal(accepted.length, 12, `accepted exactly the cap: ${replies.map((r) => r.status).join(' ')}`);
    assert.equal(refused.length, 28);
    for (const r of refused) {
      const wait = Number(r.headers['retry-after']);
      // The session first in line expires 30 minutes after its initialize, unless it is used meanwhile.
      assert.ok(Number.isInteger(wait) && wait > 1700 && wait <= 1800, `Retry-After ${String(r.headers['retry-after'])}`);
      const error = r.messages[0]?.error;
      assert.equal(error?.code, -32600, r.body);
      assert.match(error?.message, /too many sessions: the shared store holds 12 MCP sessions, the most allowed \(store\.max_mcp_sessions\)/);
      assert.deepEqual([error?.data?.retryable, error?.data?.max_sessions, error?.data?.retry_after_s], [true, 12, wait]);
    }
    assert.equal((await probe.command('KEYS', `${prefix}mcp:{*`) as string[]).length, 12, 'Redis holds exactly the cap');
    assert.equal(await probe.command('ZCARD', `${prefix}mcp:live`), 12);

    // Ending one session makes room for one more, whichever replica hears of it.
    const sid = accepted[0]!.headers['mcp-session-id'] as string;
    assert.equal((await client.send('DELETE', undefined, { 'mcp-session-id': sid })).status, 200);
    assert.equal((await client.post(INIT)).status, 200);
    assert.equal((await client.post(INIT)).status, 503);

    // Task sessions: four, then a retryable refusal naming the cap, from either replica.
    for (let i = 0; i < 4; i++) ok(await call(client, 'create_task', { mode_slug: 'code' }), `create_task ${i}`);
    for (let i = 0; i < 2; i++) {
      const o = await call(client, 'create_task', { mode_slug: 'code' });
      assert.ok(!o.ok, 'past the cap');
      assert.equal(o.code, -32004);
      assert.match(o.message, /Too many task sessions: the shared store holds 4, the most allowed \(store\.max_task_sessions\)/);
      assert.deepEqual([o.data.error_type, o.data.retryable, o.data.max_sessions], ['session_limit', true, 4]);
    }
    assert.equal(await probe.command('ZCARD', `${prefix}expiry`), 4);
    client.assertSchemaValid();
  } catch (err) { t.diagnostic(stderrOf(replicas)); throw err; }
});
