// The hook's parsed-mode-file cache: an entry answers only for the exact text, code and question it
// was made for, one entry per question, and a folder others may write to is not used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileLayerCache, MAX_ENTRIES } from '../../src/hook/layer-cache.js';
import { layerFromText, type LayerKey } from '../../src/modes/catalogue.js';

const TEXT = 'customModes:\n  - slug: docs-writer\n    name: Docs\n    roleDefinition: x\n    groups: [read, [edit, {fileRegex: "^docs/"}]]\n';

function folder(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'rms-layer-cache-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'cache');
}

/** The folder's entries (none before it is first used). */
const entries = (dir: string): string[] => { try { return readdirSync(dir); } catch { return []; } };

const keyOf = (text: string, onlySlug?: string): LayerKey => ({ text, file: '/p/.roomodes', source: 'project', jsonFallback: true, converted: false, onlySlug });

test('an entry answers for the same text, code and question only, and a changed text replaces it', async (t) => {
  const dir = folder(t);
  const cache = fileLayerCache(dir, 'code-a');
  const key = keyOf(TEXT, 'docs-writer');
  const result = await layerFromText(TEXT, key.file, 'project', true, undefined, 'docs-writer');
  assert.equal(cache.get(key), undefined, 'empty at first');
  cache.set(key, result);
  assert.deepEqual(cache.get(key), JSON.parse(JSON.stringify(result)));
  assert.equal(cache.get(keyOf(TEXT.replace('^docs/', '^dacs/'), 'docs-writer')), undefined, 'same size, other text: a miss');
  assert.equal(cache.get(keyOf(TEXT)), undefined, 'another question (the whole file)');
  assert.equal(cache.get({ ...key, file: '/q/.roomodes' }), undefined, 'another file');
  assert.equal(fileLayerCache(dir, 'code-b').get(key), undefined, 'another build');
  const changed = keyOf(TEXT.replace('^docs/', '^dacs/'), 'docs-writer');
  cache.set(changed, await layerFromText(changed.text, changed.file, 'project', true, undefined, 'docs-writer'));
  assert.equal(readdirSync(dir).length, 1, 'one entry per question: the changed text replaced the old one');
  assert.equal(cache.get(key), undefined);
  assert.match(JSON.stringify(cache.get(changed)), /\^dacs\//);
});

test('a broken entry is a miss, and a folder others may write to is not used at all', async (t) => {
  const dir = folder(t);
  const cache = fileLayerCache(dir, 'code-a');
  const key = keyOf(TEXT);
  cache.set(key, await layerFromText(TEXT, key.file, 'project', true));
  const [entry] = readdirSync(dir);
  writeFileSync(join(dir, entry!), '{"format": 2, "question": ');
  assert.equal(cache.get(key), undefined, 'half an entry');
  cache.set(key, await layerFromText(TEXT, key.file, 'project', true));
  assert.notEqual(cache.get(key), undefined);
  chmodSync(dir, 0o777);
  const shared = fileLayerCache(dir, 'code-a');
  assert.equal(shared.get(key), undefined, 'a folder anyone may write to holds nothing the hook trusts');
  shared.set(keyOf('customModes: []\n'), { modes: [], issues: [], notices: [], warnings: [], read: true });
  assert.equal(readdirSync(dir).length, 1, 'and nothing is written there');
});

test('the folder keeps a bounded number of entries: the ones written longest ago go', async (t) => {
  // Regression: one entry per project file and build, never removed, so the folder only grew.
  const dir = folder(t);
  const cache = fileLayerCache(dir, 'code-a');
  const result = await layerFromText(TEXT, '/p/.roomodes', 'project', true, undefined, 'docs-writer');
  const keyAt = (i: number): LayerKey => ({ ...keyOf(TEXT, 'docs-writer'), file: `/project-${i}/.roomodes` });
  // Entries written a second apart, long ago (as over days of use), each newer than the one before.
  const longAgo = Date.now() / 1000 - 100_000;
  for (let i = 0; i < MAX_ENTRIES + 6; i++) {
    const before = new Set(entries(dir));
    cache.set(keyAt(i), result);
    const added = entries(dir).filter((n) => !before.has(n));
    assert.equal(added.length, 1, 'each question its own entry');
    utimesSync(join(dir, added[0]!), longAgo + i, longAgo + i);
  }
  assert.equal(readdirSync(dir).length, MAX_ENTRIES, 'never more than the bound');
  for (let i = 0; i < 6; i++) assert.equal(cache.get(keyAt(i)), undefined, `the oldest entries went (${i})`);
  for (let i = 6; i < MAX_ENTRIES + 6; i++) assert.ok(cache.get(keyAt(i)), `the newer ones stay (${i})`);
});

test('an entry past the size bound is not read: a miss, and the next parse replaces it', async (t) => {
  const { appendFileSync } = await import('node:fs');
  const { MAX_ENTRY_BYTES } = await import('../../src/hook/layer-cache.js');
  const dir = folder(t);
  const cache = fileLayerCache(dir, 'code-a');
  const key = keyOf(TEXT, 'docs-writer');
  const result = await layerFromText(TEXT, key.file, 'project', true, undefined, 'docs-writer');
  cache.set(key, result);
  assert.deepEqual(cache.get(key), result);
  // Still a valid entry (JSON allows the blanks after it), but past the bound: read, it would answer.
  const [name] = entries(dir);
  appendFileSync(join(dir, name!), Buffer.alloc(MAX_ENTRY_BYTES, 0x20));
  assert.equal(cache.get(key), undefined);
  cache.set(key, result);
  assert.deepEqual(cache.get(key), result);
});
