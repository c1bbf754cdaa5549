// `call --protocol 2026-07-28` against the built server: no initialize, _meta on every request,
// results and errors of the stateless era, sessions carried through a script; and its refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCall } from '../../src/cli/call.js';
import { MAIN } from './harness.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/fake-mcp-server.mjs', import.meta.url));

async function call(argv: string[], server: string[] = [process.execPath, MAIN]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const home = mkdtempSync(join(tmpdir(), 'rms-call26-'));
  try {
    const code = await runCall(argv, {
      out: (t) => { out += t; }, err: (t) => { err += t; },
      env: { ...process.env, HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code') },
      selfCommand: server,
    });
    return { code, out, err };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

test('calls a tool over 2026-07-28 and prints the decorated result with --raw', async () => {
  const r = await call(['get_mode_info', '--arg', 'mode_slug=ask', '--protocol', '2026-07-28', '--raw']);
  assert.equal(r.code, 0, r.err);
  const result = JSON.parse(r.out);
  assert.equal(result.resultType, 'complete');
  assert.equal(result._meta['io.modelcontextprotocol/serverInfo'].name, 'roo-modes-server');
  assert.equal(result.structuredContent.slug, 'ask');
});

test('shows the era\'s errors: a missing resource is -32602', async () => {
  const r = await call(['resources/read', '--json', '{"uri":"mode://ghost"}', '--protocol', '2026-07-28']);
  assert.equal(r.code, 1);
  assert.match(r.err, /^error -32602: Resource not found/);
  assert.match(r.err, /"uri":"mode:\/\/ghost"/);
});

test('a script keeps one task session across stateless requests', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rms-call26-script-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'calls.jsonl');
  writeFileSync(file, [
    JSON.stringify({ tool: 'create_task', arguments: { mode_slug: 'architect' } }),
    JSON.stringify({ tool: 'validate_tool_use', arguments: { session_id: '$prev.structuredContent.session_id', tool_name: 'write_to_file', file_path: 'notes.md' } }),
  ].join('\n'));
  const r = await call(['--script', file, '--protocol', '2026-07-28', '--raw']);
  assert.equal(r.code, 0, r.err);
  const [, validated] = r.out.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(validated.structuredContent.allowed, true);
});

test('fails loudly against a server that does not speak 2026-07-28, and refuses an unknown revision', async () => {
  const legacy = await call(['echo', '--protocol', '2026-07-28'], [process.execPath, FIXTURE]);
  assert.notEqual(legacy.code, 0);
  assert.match(legacy.err, /server\/discover|2026-07-28/);
  const bad = await call(['echo', '--protocol', '2027-01-01']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--protocol "2027-01-01": use one of 2026-07-28, 2025-11-25/);
});
