// Protocol tests of the 2025-11-25 Streamable HTTP door over real sockets: session ids issued and
// required, DELETE then 404, JSON and SSE answers, the GET stream, Last-Event-ID resumption, and
// tool-level sessions shared between HTTP clients. Every message must pass the official schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './harness.js';
import { startHttp } from './http-harness.js';

const modes = (...slugs: string[]): string => `customModes:\n${slugs.map((s) => `  - slug: ${s}\n    name: ${s}\n    roleDefinition: The ${s} role.\n    groups: [read]\n`).join('')}`;

test('a session id is issued by initialize, required afterwards, and gone after DELETE', async (t) => {
  const s = await startHttp(t);
  const sid = await s.session();
  const list = await s.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' });
  assert.equal(list.status, 200);
  assert.equal(list.headers['content-type'], 'application/json');
  assert.ok(Array.isArray(list.messages[0]?.result?.tools));

  const without = await s.post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  assert.equal(without.status, 400, 'no Mcp-Session-Id');
  assert.match(without.messages[0]?.error?.message, /Mcp-Session-Id/);
  const unknown = await s.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': 'not-a-session-of-this-server-000000' });
  assert.equal(unknown.status, 404);
  const badVersion = await s.post({ jsonrpc: '2.0', id: 4, method: 'ping' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '1999-01-01' });
  assert.equal(badVersion.status, 400, 'an unsupported MCP-Protocol-Version header');

  const other = await s.session();
  assert.notEqual(other, sid, 'each initialize gets its own id');
  const del = await s.send('DELETE', undefined, { 'mcp-session-id': sid });
  assert.equal(del.status, 200);
  const after = await s.post({ jsonrpc: '2.0', id: 5, method: 'ping' }, { 'mcp-session-id': sid });
  assert.equal(after.status, 404, 'the ended session answers 404');
  const still = await s.post({ jsonrpc: '2.0', id: 6, method: 'ping' }, { 'mcp-session-id': other });
  assert.equal(still.status, 200, 'ending one session leaves the others');
  const batch = await s.post([{ jsonrpc: '2.0', id: 7, method: 'ping' }], { 'mcp-session-id': other });
  assert.equal(batch.status, 400, 'batches are refused over HTTP');
  s.assertSchemaValid();
});

test('a client that accepts only SSE gets its answer as an event with an id', async (t) => {
  const s = await startHttp(t);
  const sid = await s.session();
  const res = await s.post({ jsonrpc: '2.0', id: 'p', method: 'ping' }, { 'mcp-session-id': sid, accept: 'text/event-stream' });
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /text\/event-stream/);
  assert.deepEqual(res.messages, [{ jsonrpc: '2.0', id: 'p', result: {} }]);
  assert.match(res.eventIds[0] ?? '', /^\w+-1$/);
  s.assertSchemaValid();
});

test('log notifications reach the GET stream, which resumes with Last-Event-ID after a drop', async (t) => {
  const project = tempDir(t, 'rms-http-proj-');
  const s = await startHttp(t, ['--project-root', project]);
  const sid = await s.session();
  const h = { 'mcp-session-id': sid };
  assert.equal((await s.post({ jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'debug' } }, h)).status, 200);
  assert.equal((await s.post({ jsonrpc: '2.0', id: 2, method: 'prompts/list' }, h)).status, 200, 'catalogue (and watchers) started');

  const first = await s.stream('GET', h);
  assert.equal(first.res.statusCode, 200);
  writeFileSync(join(project, '.roomodes'), modes('alpha'));
  await first.next((m) => m.method === 'notifications/prompts/list_changed', 'list_changed on the GET stream');
  const lastSeen = first.eventIds.at(-1)!;
  const seenCount = first.messages.length;
  first.close();
  await first.closed;

  // While no stream is attached, events are kept for resumption.
  writeFileSync(join(project, '.roomodes'), modes('alpha', 'beta'));
  // A fresh request proves the change was processed (the next list has beta) before we resume.
  for (let i = 0; i < 100; i++) {
    const list = await s.post({ jsonrpc: '2.0', id: `l${i}`, method: 'prompts/list' }, h);
    if (JSON.stringify(list.messages[0]?.result).includes('"beta"')) break;
    await new Promise((r) => setTimeout(r, 50)); // polling the server's state, not standing in for an event
  }
  const resumed = await s.stream('GET', { ...h, 'last-event-id': lastSeen });
  assert.equal(resumed.res.statusCode, 200);
  const replayed = await resumed.next((m) => m.method === 'notifications/prompts/list_changed', 'the missed list_changed, replayed');
  assert.ok(replayed);
  const [streamId, seq] = lastSeen.split('-');
  assert.ok(resumed.eventIds.every((id) => id.startsWith(`${streamId}-`) && Number(id.split('-')[1]) > Number(seq)), `only later events: ${resumed.eventIds.join(',')} after ${lastSeen} (${seenCount} seen)`);
  resumed.close();
  const bad = await s.send('GET', undefined, { ...h, accept: 'text/event-stream', 'last-event-id': '999-1' });
  assert.equal(bad.status, 404, 'an unknown stream cannot be resumed');
  const ahead = await s.send('GET', undefined, { ...h, accept: 'text/event-stream', 'last-event-id': `${streamId}-${Number(seq) + 100_000}` });
  assert.equal(ahead.status, 404, 'an event that was never sent cannot be resumed from (it was accepted with nothing replayed)');
  assert.match(ahead.body, /never sent/);
  s.assertSchemaValid();
});

test('tool-level sessions are shared by HTTP clients of both eras', async (t) => {
  const s = await startHttp(t);
  const sid = await s.session();
  const created = await s.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_task', arguments: { mode_slug: 'code', initial_message: 'shared over HTTP' } } }, { 'mcp-session-id': sid });
  const sessionId = created.messages[0]?.result?.metadata?.session_id;
  assert.match(String(sessionId), /^ses_/, created.body);
  const other = await s.session();
  const seen = await s.post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_task_info', arguments: { session_id: sessionId } } }, { 'mcp-session-id': other });
  assert.equal(seen.messages[0]?.result?.metadata?.session_id, sessionId, seen.body);
  const modern = await s.modern(3, 'tools/call', { name: 'get_task_info', arguments: { session_id: sessionId } });
  assert.equal(modern.status, 200);
  assert.equal(modern.messages[0]?.result?.metadata?.session_id, sessionId, modern.body);
  s.assertSchemaValid();
});

test('progress notifications travel on the request\'s own SSE stream, before its answer', async (t) => {
  const project = tempDir(t, 'rms-http-proj-');
  const s = await startHttp(t, ['--project-root', project]);
  const sid = await s.session();
  const made = await s.post({ jsonrpc: '2.0', id: 'mk0', method: 'tools/call', params: { name: 'orchestrator_mode_create', arguments: { mode_name: 'development' } } }, { 'mcp-session-id': sid });
  assert.equal(made.messages[0]?.result?.isError, undefined, made.body);
  const res = await s.post({ jsonrpc: '2.0', id: 'mk', method: 'tools/call', params: { name: 'orchestrator_mode_backup', arguments: {}, _meta: { progressToken: 'pt-1' } } }, { 'mcp-session-id': sid });
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /text\/event-stream/, 'a notification before the answer turns it into a stream');
  const progress = res.messages.filter((m) => m.method === 'notifications/progress');
  assert.ok(progress.length >= 1, res.body);
  assert.ok(progress.every((m) => (m.params as { progressToken?: unknown }).progressToken === 'pt-1'));
  assert.equal(res.messages.at(-1)?.id, 'mk', 'the answer ends the stream');
  assert.equal(res.eventIds.length, res.messages.length, 'every event has an id');
  const plain = await s.post({ jsonrpc: '2.0', id: 'ls', method: 'tools/call', params: { name: 'list_modes', arguments: {} } }, { 'mcp-session-id': sid });
  assert.equal(plain.headers['content-type'], 'application/json', 'without notifications the answer is plain JSON');
  s.assertSchemaValid();
});
