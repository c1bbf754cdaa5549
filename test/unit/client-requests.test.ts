import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { connectStdio, type ConnectOptions, type McpClient } from '../../src/client/client.js';
import { ClientClosedError, McpAbortError, McpError, McpTimeoutError } from '../../src/client/errors.js';
import type { JsonObject } from '../../src/client/peer.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/fake-mcp-server.mjs', import.meta.url));
const fake = (flags: string[] = [], extra: Partial<ConnectOptions> = {}): Promise<McpClient> =>
  connectStdio({ command: process.execPath, args: [FIXTURE, ...flags], connectTimeoutMs: 10_000, ...extra });
const received = async (client: McpClient): Promise<JsonObject[]> =>
  ((await client.callTool('received')).metadata as { received: JsonObject[] }).received;
const firstText = (result: JsonObject): string => ((result.content as Array<{ text: string }>)[0]?.text ?? '');

test('follows nextCursor until the last page of resources', async (t) => {
  const client = await fake(['--page-size=2']);
  t.after(() => client.close());
  const resources = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri), [0, 1, 2, 3, 4].map((i) => `fake://item/${i}`));
  const cursors = (await received(client)).filter((m) => m.method === 'resources/list').map((m) => (m.params as JsonObject | undefined)?.cursor);
  assert.deepEqual(cursors, [undefined, 'page-2', 'page-4']);
});

test('lists tools, templates and paginated prompts; reads a resource and gets a prompt', async (t) => {
  const client = await fake();
  t.after(() => client.close());
  const tools = await client.listTools();
  assert.equal(tools.find((tool) => tool.name === 'echo')?.inputSchema.type, 'object');
  assert.deepEqual((await client.listResourceTemplates()).map((r) => r.uriTemplate), ['fake://item/{n}']);
  assert.deepEqual((await client.listPrompts()).map((p) => p.name), ['p1', 'p2']);
  const read = await client.readResource('fake://item/1');
  assert.equal((read.contents as Array<{ text: string }>)[0]?.text, 'contents of fake://item/1');
  const prompt = await client.getPrompt('p1', { topic: 'x' });
  assert.match(JSON.stringify(prompt), /prompt p1/);
  await client.ping();
});

test('passes JSON-RPC error answers through as McpError with code and data', async (t) => {
  const client = await fake();
  t.after(() => client.close());
  await assert.rejects(client.callTool('mode_error', { slug: 'nope' }), (err: unknown) => {
    assert.ok(err instanceof McpError);
    assert.equal(err.code, -32001);
    assert.equal(err.message, 'Mode not found: nope');
    assert.deepEqual(err.data, { available_modes: ['code', 'ask'] });
    return true;
  });
  const failed = await client.callTool('fail');
  assert.equal(failed.isError, true, 'a tool error is a result, not a throw');
});

test('delivers notifications to method subscribers and to "*", and unsubscribes', async (t) => {
  const client = await fake();
  t.after(() => client.close());
  const messages: unknown[] = [];
  const all: string[] = [];
  const offMessage = client.onNotification('notifications/message', (params) => messages.push(params.data));
  client.onNotification('*', (_params, method) => all.push(method));
  await client.callTool('notify');
  assert.deepEqual(messages, ['working']);
  assert.deepEqual(all, ['notifications/message', 'notifications/progress']);
  offMessage();
  await client.callTool('notify');
  assert.deepEqual(messages, ['working']);
  assert.equal(all.length, 4);
});

test('answers roots/list from the roots option, and with -32601 when none were given', async (t) => {
  const withRoots = await fake([], { roots: [{ uri: 'file:///project', name: 'project' }] });
  t.after(() => withRoots.close());
  assert.deepEqual(JSON.parse(firstText(await withRoots.callTool('ask_roots'))), { roots: [{ uri: 'file:///project', name: 'project' }] });
  const init = (await received(withRoots))[0]?.params as { capabilities: JsonObject };
  assert.deepEqual(init.capabilities.roots, { listChanged: false });

  const without = await fake();
  t.after(() => without.close());
  const answer = JSON.parse(firstText(await without.callTool('ask_roots'))) as { error: { code: number } };
  assert.equal(answer.error.code, -32601);
});

test('times out a request and sends notifications/cancelled naming its id', async (t) => {
  const client = await fake();
  t.after(() => client.close());
  await assert.rejects(client.callTool('slow', {}, { timeoutMs: 100 }), (err: unknown) => {
    assert.ok(err instanceof McpTimeoutError);
    assert.equal(err.timeoutMs, 100);
    return true;
  });
  const log = await received(client);
  const call = log.find((m) => m.method === 'tools/call' && (m.params as JsonObject).name === 'slow');
  const cancel = log.find((m) => m.method === 'notifications/cancelled');
  assert.ok(call && cancel, 'both the call and its cancellation reached the server');
  assert.equal((cancel.params as JsonObject).requestId, call.id);
  assert.equal(cancel.id, undefined, 'a cancellation is a notification');
});

test('aborts a request through its signal and sends notifications/cancelled', async (t) => {
  const client = await fake();
  t.after(() => client.close());
  const controller = new AbortController();
  const pending = client.callTool('slow', {}, { signal: controller.signal });
  controller.abort(new Error('user pressed stop'));
  await assert.rejects(pending, (err: unknown) => err instanceof McpAbortError && /user pressed stop/.test(err.message));
  assert.ok((await received(client)).some((m) => m.method === 'notifications/cancelled'));
});

test('health checks call onUnhealthy when ping goes unanswered', async (t) => {
  const client = await fake(['--never-answer=ping']);
  t.after(() => client.close());
  const err = await new Promise<Error>((resolve) => {
    const stop = client.startHealthChecks({ intervalMs: 20, timeoutMs: 50, onUnhealthy: (e) => { stop(); resolve(e); } });
  });
  assert.ok(err instanceof McpTimeoutError);
  assert.equal(err.method, 'ping');
});

test('close() leaves on stdin EOF when the server exits by itself', async () => {
  const client = await fake();
  const result = await client.close();
  assert.deepEqual(result, { code: 0, signal: null, stoppedBy: 'eof' });
});

test('close() escalates to SIGTERM when the server ignores stdin EOF', async () => {
  const client = await fake(['--ignore-eof']);
  const abandoned = assert.rejects(client.callTool('slow'), ClientClosedError);
  const result = await client.close({ graceMs: 150, termMs: 5000 });
  assert.equal(result.stoppedBy, 'SIGTERM');
  assert.equal(result.signal, 'SIGTERM');
  await abandoned;
});

test('close() escalates to SIGKILL when the server also ignores SIGTERM', async () => {
  const client = await fake(['--ignore-eof', '--ignore-sigterm']);
  const result = await client.close({ graceMs: 100, termMs: 150 });
  assert.equal(result.stoppedBy, 'SIGKILL');
  assert.equal(result.signal, 'SIGKILL');
});

test('drops a server line nested deeper than 1000 levels as a protocol error, and keeps working', async (t) => {
  const problems: string[] = [];
  const client = await fake(['--deep-notify=100000'], { onProtocolError: (m) => problems.push(m) });
  t.after(() => client.close());
  const seen: unknown[] = [];
  client.onNotification('notifications/deep', (params) => seen.push(params));
  await client.ping();
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(problems[0]!, /^server wrote a line in which the message nests deeper than 1000 levels: \{"jsonrpc"/);
  assert.deepEqual(seen, [], 'the deep notification reached no subscriber');
  await client.ping();
});
