// The README and docs/ show placeholders (/path/to/project), never paths of the machine they were
// written on: this checkout, the folder holding it, the home folder or the doc-writing scratch folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const DOCS = ['README.md', ...readdirSync(join(REPO, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];

/**
 * Path prefixes that only make sense on one machine: this checkout, the home folder, and the
 * checkout and scratch folder the docs were once written in.
 */
function machinePaths(): string[] {
  const out = [`${REPO}/`, '/tmp/docwork', '/work/main/'];
  const home = homedir();
  if (home.length > 1) out.push(`${home}/`);
  return [...new Set(out)].filter((p) => p !== '/' && p !== '//');
}

test('the README and docs/*.md hold no absolute path of this machine', () => {
  const found: string[] = [];
  for (const doc of DOCS) {
    const lines = readFileSync(join(REPO, doc), 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const p of machinePaths()) if (line.includes(p)) found.push(`${doc}:${i + 1}: ${p} in ${line.trim().slice(0, 120)}`);
    });
  }
  assert.deepEqual(found, []);
});

test('docs/integration.md registers the server with placeholder paths', () => {
  const text = readFileSync(join(REPO, 'docs/integration.md'), 'utf8');
  assert.match(text, /"\/path\/to\/roo-modes-server\/dist\/main\.cjs"/);
  // The bin is dist/main.cjs (dist/main.js only loads it): every command the page gives runs the bin.
  const bin = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['roo-modes-server'];
  assert.equal(bin, 'dist/main.cjs');
  assert.deepEqual([...new Set(text.match(/\/path\/to\/roo-modes-server\/dist\/main\.c?js/g))], ['/path/to/roo-modes-server/dist/main.cjs']);
  assert.match(text, /-e KEY=VALUE/, 'the Inspector forms are documented');
});
