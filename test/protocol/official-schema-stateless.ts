// The broad 2026-07-28 session whose every line official-schema.test.ts checks: discovery, every
// method and mode tool with errors, per-request logs, listen streams, cancellation and bad lines.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, tempDir, type ServerProcess } from './harness.js';
import { ROOMODES, Session, after, failedWith, idKey, isRecord, metadataOf, succeeded, type TestCtx } from './official-check.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'schema-test', version: '1' },
};
const SUB_ID = 'io.modelcontextprotocol/subscriptionId';

/** Opens a listen stream and waits for its acknowledgement. */
async function listen(session: Session, id: string, notifications: Record<string, unknown>): Promise<void> {
  const { s } = session;
  session.methodOf.set(idKey(id), 'subscriptions/listen');
  s.request(id, 'subscriptions/listen', session.withMeta({ notifications }));
  await s.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged' && isRecord(m.params) && isRecord(m.params._meta) && m.params._meta[SUB_ID] === id, 5000, `ack of ${id}`);
}

/** `toolErrors` "result" runs the short session of tool failures as isError results. */
export async function runStatelessSession(t: TestCtx, toolErrors: 'jsonrpc' | 'result'): Promise<{ s: ServerProcess; session: Session }> {
  const project = tempDir(t, 'rms-official-26-');
  const roomodes = join(project, '.roomodes');
  writeFileSync(roomodes, ROOMODES('You review changes.'));
  const config = join(tempDir(t, 'rms-official-26-cfg-'), 'config.json');
  writeFileSync(config, JSON.stringify({ server: { page_size: 4, tool_errors: toolErrors } }));
  const s = startServer(t, { args: ['--project-root', project, '--config', config] });
  const session = new Session(s, META);
  succeeded(await session.call('server/discover'), 'discover');

  if (toolErrors === 'result') {
    for (const [name, args] of [['get_mode_info', { mode_slug: 'ghost' }], ['get_task_info', { session_id: 'ses_000000000000000000000000' }], ['create_task', { mode_slug: 7 }]] as const) {
      const res = await session.tool(name, args);
      assert.ok(isRecord(res.result) && res.result.isError === true, `${name} answers an isError result`);
    }
    assert.deepEqual(await s.end(), { code: 0, signal: null });
    return { s, session };
  }

  assert.ok((await session.all('tools/list', 'tools')).length > 4, 'tools/list spans several pages');
  metadataOf(await session.tool('list_modes', {}), 'list_modes');
  const task = metadataOf(await session.tool('create_task', { mode_slug: 'code', initial_message: 'Add a feature' }), 'create_task');
  metadataOf(await session.tool('validate_tool_use', { session_id: task.session_id, tool_name: 'read_file' }), 'validate');
  failedWith(await session.tool('validate_tool_use', { session_id: task.session_id, tool_name: 'read_file', enforce: true, file_path: '../x' }), -32006, 'file refusal');
  metadataOf(await session.tool('complete_task', { session_id: task.session_id, status: 'completed' }), 'complete_task');
  failedWith(await session.tool('get_mode_info', { mode_slug: 'ghost' }), -32001, 'unknown mode');
  // 2026-07-28 counts input validation failures among tool execution errors: an isError result.
  const badArgs = await session.tool('create_task', { mode_slug: 7 });
  assert.ok(isRecord(badArgs.result) && badArgs.result.isError === true, `bad arguments: ${JSON.stringify(badArgs)}`);
  failedWith(await session.tool('no_such_tool'), -32602, 'unknown tool');

  // Per-request logs: a mode-set tool logs at info; only the request that asked hears it.
  const beforeLog = s.messages.length;
  const logId = session.nextId();
  session.methodOf.set(idKey(logId), 'tools/call');
  metadataOf(await s.call(logId, 'tools/call', session.withMeta({ name: 'orchestrator_mode_create', arguments: { mode_name: 'development' } }, { 'io.modelcontextprotocol/logLevel': 'debug' })), 'create set');
  await after(s, beforeLog, 'notifications/message');

  // Resources and prompts, a missing resource, completion, a progress token.
  assert.equal((await session.all('resources/list', 'resources')).length, 18);
  await session.all('resources/templates/list', 'resourceTemplates');
  succeeded(await session.call('resources/read', { uri: 'mode://reviewer/system_prompt' }), 'read');
  failedWith(await session.call('resources/read', { uri: 'mode://ghost' }), -32602, 'missing resource');
  assert.equal((await session.all('prompts/list', 'prompts')).length, 6);
  succeeded(await session.call('prompts/get', { name: 'reviewer', arguments: { task: 'Review' } }), 'prompts/get');
  succeeded(await session.call('completion/complete', { ref: { type: 'ref/resource', uri: 'mode://{slug}' }, argument: { name: 'slug', value: 're' } }), 'completion');
  succeeded(await session.call('tools/call', { name: 'list_modes', arguments: {}, _meta: { progressToken: 'p-26' } }), 'progress call');

  // Listen streams: one cancelled, one kept open until the end of input; a mode-file edit between.
  await listen(session, 'L-keep', { resourcesListChanged: true, promptsListChanged: true, toolsListChanged: true, resourceSubscriptions: ['mode://reviewer'] });
  await listen(session, 'L-drop', { promptsListChanged: true });
  s.notify('notifications/cancelled', { requestId: 'L-drop' });
  const beforeEdit = s.messages.length;
  writeFileSync(roomodes, ROOMODES('You review changes and write the findings down.'));
  await after(s, beforeEdit, 'notifications/resources/updated');
  await after(s, beforeEdit, 'notifications/resources/list_changed');
  await after(s, beforeEdit, 'notifications/prompts/list_changed');
  failedWith(await session.call('subscriptions/listen', { notifications: { 'io.github.roo-modes/roo-events': true } }), -32021, 'undeclared extension');

  // Era and _meta errors, removed methods, bad lines.
  failedWith(await session.call('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2031-01-01' } }), -32022, 'unsupported version');
  failedWith(await s.call('bare', 'tools/list'), -32602, 'no _meta');
  failedWith(await session.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }), -32600, 'initialize');
  failedWith(await session.call('ping'), -32601, 'removed ping');
  for (const line of ['{"jsonrpc":"2.0","method":"tools/list","id":[oops', '[]', '{"jsonrpc":"2.0","id":"no-method","params":{}}']) {
    s.write(`${line}\n`);
    succeeded(await session.call('tools/list'), 'barrier');
  }
  assert.deepEqual(await s.end(), { code: 0, signal: null });
  assert.ok(s.messages.some((m) => m.id === 'L-keep' && isRecord(m.result)), 'the open stream ended with its result');
  assert.ok(!s.messages.some((m) => m.id === 'L-drop'), 'nothing for the cancelled stream');
  return { s, session };
}
