// Keeps docs/api.md equal to what dev/gen-api.mjs produces from the schemas and the built server,
// and checks that the generator's --check really notices drift. Needs `npm run build` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '../../src/rpc/errors.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const GEN = join(REPO, 'dev', 'gen-api.mjs');
const API = join(REPO, 'docs', 'api.md');

function gen(args: string[]): { status: number | null; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, [GEN, ...args], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

test('docs/api.md is exactly what gen-api.mjs generates (run `node dev/gen-api.mjs` after changing a schema)', () => {
  const r = gen(['--check']);
  assert.equal(r.status, 0, `docs/api.md is stale:\n${r.stderr}`);
});

test('--check exits 1 and names the first differing line when a copy has drifted', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-api-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const lines = readFileSync(API, 'utf8').split('\n');
  const at = lines.findIndex((l) => l.startsWith('| `mode_slug`'));
  assert.ok(at > 0, 'docs/api.md documents a mode_slug parameter');
  lines[at] = lines[at]!.replace('yes', 'no');
  const stale = join(dir, 'api.md');
  writeFileSync(stale, lines.join('\n'));
  const r = gen(['--check', '--file', stale]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /is stale/);
  assert.match(r.stderr, new RegExp(`line ${at + 1}:`));
  assert.match(r.stderr, /1 line\(s\) differ/);
});

test('--check exits 1 when the document is missing', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-api-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const r = gen(['--check', '--file', join(dir, 'absent.md')]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /does not exist/);
});

test('docs/api.md has a section for every tool schema and a row for every error code', () => {
  const doc = readFileSync(API, 'utf8');
  const tools = readdirSync(join(REPO, 'schemas', 'tools')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
  assert.ok(tools.length >= 25, `expected the full tool set, found ${tools.length}`);
  for (const name of tools) assert.ok(doc.includes(`#### \`${name}\``), `no section for ${name}`);
  const errorTable = doc.slice(doc.indexOf('## Error codes'));
  for (const [name, code] of Object.entries(ERROR_CODES)) {
    assert.ok(errorTable.includes(`| \`${code}\` | ${name} |`), `no error-table row for ${name} (${code})`);
  }
});

test('docs/api.md documents the three resource templates and the built-in prompts', () => {
  const doc = readFileSync(API, 'utf8');
  for (const uri of ['mode://{slug}', 'mode://{slug}/config', 'mode://{slug}/system_prompt']) {
    assert.ok(doc.includes(`| \`${uri}\` |`), `no row for ${uri}`);
  }
  const prompts = doc.slice(doc.indexOf('## Prompts'), doc.indexOf('## Completions'));
  for (const slug of ['code', 'architect', 'ask', 'debug', 'orchestrator']) assert.ok(prompts.includes(`| \`${slug}\` |`), `no prompt row for ${slug}`);
});
