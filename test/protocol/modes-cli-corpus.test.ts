// `roo-modes-server modes --json` on a project holding each real-world .roomodes of the corpus:
// the valid modes are listed exactly as Roo loads them, the invalid ones are reported with a line.
// Skipped, with one line naming the folder, when the corpus is not beside the repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MAIN, tempDir } from './harness.js';
import { ROOMODES_CORPUS as CORPUS, corpusMissing } from '../shared-corpus.js';

const run = promisify(execFile);
const GROUPS = new Set(['read', 'edit', 'browser', 'command', 'mcp', 'modes']);

/** Roo's rules for one entry, written out independently of the server's code. */
function plainlyValid(m: any): boolean {
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
  if (typeof m.slug !== 'string' || !/^[a-zA-Z0-9-]+$/.test(m.slug)) return false;
  if (typeof m.name !== 'string' || m.name === '' || typeof m.roleDefinition !== 'string' || m.roleDefinition === '') return false;
  if (!Array.isArray(m.groups)) return false;
  const seen = new Set<string>();
  for (const g of m.groups) {
    const name = Array.isArray(g) ? g[0] : g;
    if (typeof name !== 'string' || !GROUPS.has(name) || seen.has(name)) return false;
    seen.add(name);
  }
  return true;
}

test('lists every valid corpus mode exactly and reports the others with a line', { timeout: 120_000, skip: corpusMissing }, async (t) => {
  const files = readdirSync(CORPUS).filter((f) => f.endsWith('.roomodes')).sort();
  let listed = 0;
  let reported = 0;
  for (const file of files) {
    const expected = JSON.parse(readFileSync(join(CORPUS, file.replace('.roomodes', '.expected.json')), 'utf8'));
    const dir = tempDir(t, 'rms-corpus-');
    copyFileSync(join(CORPUS, file), join(dir, '.roomodes'));
    const home = tempDir(t, 'rms-home-');
    const { stdout } = await run(process.execPath, [MAIN, 'modes', '--json', '--project-root', dir, '--config-dir', join(home, 'none')], { maxBuffer: 64 * 1024 * 1024 })
      .catch((err: { stdout: string }) => ({ stdout: err.stdout }));
    const out = JSON.parse(stdout);
    const project = out.modes.filter((m: any) => m.source === 'project');
    const entries = expected.ok && Array.isArray(expected.value?.customModes) ? expected.value.customModes : [];
    if (!expected.ok) {
      assert.equal(project.length, 0, `${file}: a broken file contributes no modes`);
      assert.ok(out.errors.some((e: any) => Number.isInteger(e.line) && e.line >= 1), `${file}: located error`);
      reported++;
      continue;
    }
    const firstBySlug = new Map<string, any>();
    for (const m of entries) if (plainlyValid(m) && !firstBySlug.has(m.slug)) firstBySlug.set(m.slug, m);
    for (const m of project) {
      const want = firstBySlug.get(m.slug);
      assert.ok(want, `${file}: listed mode ${m.slug} is one Roo would load`);
      assert.deepEqual({ slug: m.slug, name: m.name, roleDefinition: m.roleDefinition, groups: m.groups },
        { slug: want.slug, name: want.name, roleDefinition: want.roleDefinition, groups: want.groups }, `${file}: ${m.slug}`);
      listed++;
    }
    for (const [slug] of firstBySlug) {
      if (project.some((m: any) => m.slug === slug)) continue;
      // Only a refused (unsafe or uncompilable) fileRegex may keep a plainly valid mode out.
      assert.ok(out.errors.some((e: any) => e.slug === slug && /regex|pattern/i.test(e.message) && e.line >= 1), `${file}: ${slug} missing without a reason`);
    }
    for (const m of entries) {
      if (plainlyValid(m)) continue;
      const slug = typeof m?.slug === 'string' ? m.slug : undefined;
      assert.ok(out.errors.some((e: any) => e.line >= 1 && (slug === undefined || e.slug === slug || e.message.includes(slug))), `${file}: invalid entry ${slug ?? '(no slug)'} reported`);
      reported++;
    }
  }
  assert.ok(listed > 400, `listed ${listed} corpus modes`);
  assert.ok(reported > 5, `reported ${reported} problems`);
});
