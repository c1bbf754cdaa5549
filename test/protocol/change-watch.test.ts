// Change notifications reach whoever could be told, without any earlier request having loaded the
// catalogue: a legacy client that only initialized, a 2026-07-28 client whose first message is
// subscriptions/listen, and an HTTP session listening on its GET stream. Built server, real pipes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { startServer, tempDir, type Msg } from './harness.js';
import { META_2026, startHttp } from './http-harness.js';

const SUB_ID = 'io.modelcontextprotocol/subscriptionId';
/** Logged (debug) once the first load under watch is done: edits after it are announced. */
const WATCHING = /watching \d+ folders for changes to the mode files/;

const modesFile = (role: string): string =>
  `customModes:\n  - slug: reviewer\n    name: Reviewer\n    roleDefinition: ${role}\n    groups: [read]\n`;

/** Resolves once the stream's text so far matches `re` (checked on every chunk); rejects after timeoutMs. */
function waitForText(stream: Readable, seen: () => string, re: RegExp, timeoutMs = 10_000): Promise<void> {
  if (re.test(seen())) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onData = (): void => { if (re.test(seen())) { stream.off('data', onData); clearTimeout(timer); resolve(); } };
    const timer = setTimeout(() => { stream.off('data', onData); reject(new Error(`timed out waiting for ${re} in:\n${seen().slice(-1500)}`)); }, timeoutMs);
    // Registered after the owner's listener, so `seen()` already holds the chunk.
    stream.on('data', onData);
  });
}

test('a legacy client that only initialized hears list_changed after a .roomodes edit', async (t) => {
  const project = tempDir(t, 'rms-watch-');
  const s = startServer(t, { args: ['--project-root', project, '--log-level', 'debug'] });
  await s.initialize('2025-06-18');
  await waitForText(s.child.stderr, () => s.stderr, WATCHING);
  const from = s.messages.length;
  const edited = Date.now();
  writeFileSync(join(project, '.roomodes'), modesFile('Reviews.'));
  for (const method of ['notifications/resources/list_changed', 'notifications/prompts/list_changed']) {
    await s.waitFor((m) => m.method === method && s.messages.indexOf(m) >= from, 8000, method);
  }
  // The debounce is 75 ms plus one reload; the margin is for a loaded machine, not a slower design.
  assert.ok(Date.now() - edited < 3000, `announced ${Date.now() - edited} ms after the edit`);
  // Nothing but the initialize answer and notifications: no request loaded the catalogue.
  assert.deepEqual(s.messages.filter((m) => 'id' in m).map((m) => m.id), ['init']);
  s.assertStdoutPure();
});

test('a 2026-07-28 client whose first message is subscriptions/listen hears the first edit after the acknowledgement', async (t) => {
  const project = tempDir(t, 'rms-watch-');
  const s = startServer(t, { args: ['--project-root', project] });
  const filter = { resourcesListChanged: true, promptsListChanged: true, resourceSubscriptions: ['mode://reviewer'] };
  s.request('L', 'subscriptions/listen', { notifications: filter, _meta: META_2026 });
  await s.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged', 10_000, 'the acknowledgement');
  const from = s.messages.length;
  writeFileSync(join(project, '.roomodes'), modesFile('Reviews.'));
  const on = (m: Msg): boolean => s.messages.indexOf(m) >= from && (m.params as { _meta?: Record<string, unknown> } | undefined)?._meta?.[SUB_ID] === 'L';
  await s.waitFor((m) => m.method === 'notifications/resources/list_changed' && on(m), 8000, 'resources/list_changed');
  await s.waitFor((m) => m.method === 'notifications/prompts/list_changed' && on(m), 8000, 'prompts/list_changed');
  const updated = await s.waitFor((m) => m.method === 'notifications/resources/updated' && on(m), 8000, 'resources/updated');
  assert.equal((updated.params as { uri: string }).uri, 'mode://reviewer');
  s.assertStdoutPure();
});

test('an HTTP session listening on its GET stream hears list_changed after a .roomodes edit', async (t) => {
  const project = tempDir(t, 'rms-watch-http-');
  const s = await startHttp(t, ['--project-root', project, '--log-level', 'debug']);
  const sid = await s.session('2025-06-18');
  const stream = await s.stream('GET', { 'mcp-session-id': sid });
  assert.equal(stream.res.statusCode, 200);
  await waitForText(s.child.stderr, () => s.stderr, WATCHING);
  writeFileSync(join(project, '.roomodes'), modesFile('Reviews.'));
  await stream.next((m) => m.method === 'notifications/resources/list_changed', 'resources/list_changed on the GET stream');
  await stream.next((m) => m.method === 'notifications/prompts/list_changed', 'prompts/list_changed on the GET stream');
  stream.close();
});
