// The HTTP hook endpoint (POST /hooks/claude-code) over a real socket: Claude Code's HTTP hook
// contract (200 {} for no objection, 200 + deny, non-2xx for errors), the MCP endpoint's security,
// and decisions that follow the mode files the server watches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hookProject } from './hook-rig.js';
import { startHttp, type HttpServer } from './http-harness.js';

interface Answer { status: number; body: string; headers: Record<string, string | string[] | undefined> }

/** One request to the hook endpoint of `s` (query and headers as given). */
function hookCall(s: HttpServer, query: string, body: string, headers: Record<string, string> = {}, method = 'POST'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${new URL(s.url).origin}/hooks/claude-code${query}`, { method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let data = '';
      res.setEncoding('utf8').on('data', (c: string) => { data += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const event = (root: string, tool_name: string, tool_input: Record<string, unknown>, extra: Record<string, unknown> = {}): string => JSON.stringify({
  session_id: 's1', cwd: root, hook_event_name: 'PreToolUse', tool_name, tool_input, ...extra,
});

const denyReason = (a: Answer): string => {
  assert.equal(a.status, 200, a.body);
  const out = JSON.parse(a.body) as { hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string } };
  assert.equal(out.hookSpecificOutput.hookEventName, 'PreToolUse');
  assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
  return out.hookSpecificOutput.permissionDecisionReason;
};

const noObjection = (a: Answer, what: string): void => {
  assert.equal(a.status, 200, `${what}: ${a.body}`);
  assert.equal(a.body, '{}', `${what}: no objection is an empty object, never "allow"`);
  assert.match(String(a.headers['content-type']), /application\/json/);
};

test('POST /hooks/claude-code answers like the command hook: deny, {} and errors as non-2xx', async (t) => {
  const { root, env } = hookProject(t);
  const s = await startHttp(t, ['--project-root', root], env);
  const outside = { file_path: join(root, 'src', 'a.ts'), content: '' };
  assert.match(denyReason(await hookCall(s, '?mode=architect', event(root, 'Write', outside))), /architect.*\\\.md\$.*src\/a\.ts/);
  assert.match(denyReason(await hookCall(s, '?mode=docs-writer', event(root, 'Edit', { file_path: join(root, 'README.md') }))), /\^docs\//);
  assert.match(denyReason(await hookCall(s, '?mode=ask', event(root, 'Bash', { command: 'ls' }))), /"command" group/);
  assert.match(denyReason(await hookCall(s, '?mode=architect', event(root, 'run_in_terminal', { command: 'ls' }))), /"command" group/);
  noObjection(await hookCall(s, '?mode=architect', event(root, 'Write', { file_path: join(root, 'plan.md'), content: '' })), 'inside the pattern');
  noObjection(await hookCall(s, '?mode=architect', event(root, 'Read', { file_path: join(root, 'src', 'a.ts') })), 'a read');
  noObjection(await hookCall(s, '?mode=architect', event(root, 'vscode_unknownTool', { path: 42 })), 'an unknown tool');

  // Without ?mode= the mode is the subagent's, and the main session's calls get no objection.
  assert.match(denyReason(await hookCall(s, '', event(root, 'Write', outside, { agent_id: 'a', agent_type: 'docs-writer' }))), /docs-writer/);
  noObjection(await hookCall(s, '', event(root, 'Write', outside)), 'no agent_type');
  noObjection(await hookCall(s, '', event(root, 'Write', outside, { agent_type: 'Explore' })), 'an agent no mode exports');
  // An agent file an export wrote for a mode that is gone: refused (503), naming the agent and the mode.
  mkdirSync(join(root, '.claude', 'agents'), { recursive: true });
  writeFileSync(join(root, '.claude', 'agents', 'old-mode.md'), '---\n# Exported by roo-modes-server from mode old-mode from .roomodes line 2; export again rather than editing.\nname: old-mode\n---\nx\n');
  const orphan = await hookCall(s, '', event(root, 'Write', { file_path: join(root, 'docs', 'a.md'), content: '' }, { agent_type: 'old-mode' }));
  assert.equal(orphan.status, 503, orphan.body);
  assert.match((JSON.parse(orphan.body) as { error: string }).error, /subagent "old-mode" .* exported from mode "old-mode", which the mode files no longer define/);

  const errors: [Promise<Answer>, number, RegExp][] = [
    [hookCall(s, '?mode=architect', '{"tool_name": '), 400, /not JSON/],
    [hookCall(s, '?mode=architect', JSON.stringify({ hook_event_name: 'PostToolUse', tool_name: 'Write' })), 400, /PreToolUse/],
    [hookCall(s, '?mode=architect', event(root, 'Write', { file_path: 7 })), 400, /tool_input\.file_path/],
    [hookCall(s, '?mode=no-such-mode', event(root, 'Write', outside)), 404, /unknown mode "no-such-mode".*architect/],
    [hookCall(s, '?mode=architect', '', {}, 'GET'), 405, /POST/],
    // As the MCP endpoint: only a body declared JSON is read (a browser's simple POST is text/plain or a form).
    [hookCall(s, '?mode=architect', event(root, 'Write', outside), { 'content-type': 'text/plain' }), 415, /application\/json \(Content-Type was "text\/plain"\)/],
    [hookCall(s, '?mode=architect', event(root, 'Write', outside), { 'content-type': 'application/x-www-form-urlencoded' }), 415, /Content-Type was "application\/x-www-form-urlencoded"/],
    [hookCall(s, '?mode=architect', event(root, 'Write', outside), { 'content-type': '' }), 415, /Content-Type was ""/],
  ];
  for (const [pending, status, why] of errors) {
    const a = await pending;
    assert.match(String(a.headers['content-type']), /application\/json/);
    assert.equal(a.status, status, a.body);
    assert.match((JSON.parse(a.body) as { error: string }).error, why);
  }
  // The MCP endpoint is unaffected beside it.
  assert.equal((await s.post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })).status, 200);
});

test('the hook endpoint has the MCP endpoint’s security: Host and Origin checks, the bearer token', async (t) => {
  const { root, env } = hookProject(t);
  const token = 'a-long-enough-hook-token-0123456789';
  const s = await startHttp(t, ['--project-root', root], { ...env, ROO_MODES_HTTP_TOKEN: token });
  const port = new URL(s.url).port;
  const body = event(root, 'Write', { file_path: join(root, 'src', 'a.ts'), content: '' });
  const auth = { authorization: `Bearer ${token}` };
  // Refused by the gate, the hook endpoint still answers {"error": …} as it does for every failure
  // (docs/integration.md), not the MCP endpoint's JSON-RPC error.
  const refusals: [Promise<Answer>, number, RegExp][] = [
    [hookCall(s, '?mode=architect', body), 401, /needs "Authorization: Bearer <token>"/],
    [hookCall(s, '?mode=architect', body, { authorization: 'Bearer wrong' }), 403, /^wrong bearer token/],
    [hookCall(s, '?mode=architect', body, { ...auth, origin: 'http://evil.example' }), 403, /Origin "http:\/\/evil\.example" is not allowed/],
    [hookCall(s, '?mode=architect', body, { ...auth, host: `evil.example:${port}` }), 403, /DNS rebinding/],
  ];
  for (const [pending, status, why] of refusals) {
    const a = await pending;
    assert.equal(a.status, status, a.body);
    assert.deepEqual(Object.keys(JSON.parse(a.body) as object), ['error'], a.body);
    assert.match((JSON.parse(a.body) as { error: string }).error, why);
  }
  denyReason(await hookCall(s, '?mode=architect', body, auth));
});

test('the hook endpoint decides with the mode files as they are now (the server watches them)', async (t) => {
  const { root, env } = hookProject(t);
  const s = await startHttp(t, ['--project-root', root], env);
  const readme = event(root, 'Write', { file_path: join(root, 'README.md'), content: '' });
  denyReason(await hookCall(s, '?mode=docs-writer', readme));
  writeFileSync(join(root, '.roomodes'), 'customModes:\n  - slug: docs-writer\n    name: Docs Writer\n    roleDefinition: Docs.\n    groups:\n      - read\n      - - edit\n        - fileRegex: \\.md$\n');
  // The watcher reloads on its own schedule: ask until the answer changes (bounded).
  const deadline = Date.now() + 15_000;
  let last = await hookCall(s, '?mode=docs-writer', readme);
  while (last.body !== '{}' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await hookCall(s, '?mode=docs-writer', readme);
  }
  noObjection(last, 'README.md once the pattern allows Markdown anywhere');
});
