import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { builtinModes } from '../../src/modes/builtin.js';
import { buildSystemPrompt } from '../../src/modes/prompt.js';
import type { Mode } from '../../src/modes/types.js';

const all = builtinModes();
const bySlug = (slug: string): Mode => all.find((m) => m.slug === slug)!;

async function tree(t: { after(fn: () => Promise<void>): void }): Promise<{ home: string; project: string; put(path: string, text: string): Promise<void> }> {
  const base = await mkdtemp(join(tmpdir(), 'modes-prompt-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  const home = join(base, 'home');
  const project = join(base, 'project');
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  return {
    home, project,
    async put(path, text) {
      const full = path.startsWith('~/') ? join(home, path.slice(2)) : join(project, path);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, text);
    },
  };
}

const positions = (text: string, needles: string[]): number[] => needles.map((n) => {
  const at = text.indexOf(n);
  assert.ok(at >= 0, `missing ${JSON.stringify(n)}`);
  return at;
});
const ascending = (xs: number[]): boolean => xs.every((x, i) => i === 0 || xs[i - 1]! < x);

test('sections come in order: role, identity, tools, other modes, instructions, rules', async (t) => {
  const fs = await tree(t);
  await fs.put('.roo/rules-architect/1.md', 'Mode rule.');
  await fs.put('.roo/rules/general.md', 'General rule.');
  const architect = bySlug('architect');
  const text = await buildSystemPrompt(architect, all, { projectRoot: fs.project, homeDir: fs.home });
  assert.ok(text.startsWith(architect.roleDefinition));
  const at = positions(text, ['\nMODE\n', '(slug: architect)', '\nTOOLS\n', '\nOTHER MODES\n', '\nMODE INSTRUCTIONS\n', '\nRULES\n', 'Mode rule.', 'General rule.']);
  assert.ok(ascending(at), String(at));
  assert.match(text, /- edit \(only files whose path matches \\\.md\$: Markdown files only\): apply_diff/);
  assert.match(text, /Not available in this mode: command, web\./);
  assert.match(text, /- 💻 Code \(code\): Use this mode to write/);
  assert.doesNotMatch(text.slice(text.indexOf('OTHER MODES')), /\(architect\):/);
  assert.equal(text, await buildSystemPrompt(architect, all, { projectRoot: fs.project, homeDir: fs.home }), 'deterministic');
});

test('code has no instructions section and no rules section when there are no rules', async (t) => {
  const fs = await tree(t);
  const text = await buildSystemPrompt(bySlug('code'), all, { projectRoot: fs.project, homeDir: fs.home });
  assert.doesNotMatch(text, /MODE INSTRUCTIONS|RULES/);
  assert.match(text, /Available in every mode: ask_followup_question/);
});

test('a mode without whenToUse is listed with the first sentence of its role', async (t) => {
  const fs = await tree(t);
  const extra: Mode = { slug: 'x', name: 'X', roleDefinition: 'You do X. Then more.', groups: [], source: 'project' };
  const text = await buildSystemPrompt(bySlug('code'), [...all, extra], { projectRoot: fs.project, homeDir: fs.home });
  assert.match(text, /- X \(x\): You do X\.\n|- X \(x\): You do X\.$/m);
  const own = await buildSystemPrompt(extra, [...all, extra], { projectRoot: fs.project, homeDir: fs.home });
  assert.match(own, /no tool groups: only the always-available tools/);
});

test('mode rules: global dir, then project dir, recursive, sorted by name case-insensitively, skipping junk', async (t) => {
  const fs = await tree(t);
  await fs.put('~/.roo/rules-code/z.md', 'HOME-Z');
  await fs.put('.roo/rules-code/B.md', 'PROJ-B');
  await fs.put('.roo/rules-code/nested/a.md', 'PROJ-A');
  await fs.put('.roo/rules-code/c.txt', 'PROJ-C');
  for (const junk of ['x.log', 'y.bak', 'z.tmp', 'w.lock', '.DS_Store', 'Thumbs.db']) await fs.put(`.roo/rules-code/${junk}`, 'JUNK');
  await fs.put('.roo/rules-code/empty.md', '   \n');
  await fs.put('.roorules-code', 'FALLBACK');
  const text = await buildSystemPrompt(bySlug('code'), all, { projectRoot: fs.project, homeDir: fs.home });
  assert.ok(ascending(positions(text, ['HOME-Z', 'PROJ-A', 'PROJ-B', 'PROJ-C'])));
  assert.doesNotMatch(text, /JUNK|FALLBACK|empty\.md/);
  assert.match(text, /# Rules file: ~\/\.roo\/rules-code\/z\.md\nHOME-Z/);
  assert.match(text, /# Rules file: \.roo\/rules-code\/nested\/a\.md\nPROJ-A/);
});

test('mode rules follow symlinked files and directories', async (t) => {
  const fs = await tree(t);
  await fs.put('shared/linked.md', 'LINKED-FILE');
  await fs.put('shared-dir/inner.md', 'LINKED-DIR');
  await mkdir(join(fs.project, '.roo/rules-code'), { recursive: true });
  await symlink(join(fs.project, 'shared/linked.md'), join(fs.project, '.roo/rules-code/link.md'));
  await symlink(join(fs.project, 'shared-dir'), join(fs.project, '.roo/rules-code/dir'));
  await symlink(join(fs.project, 'missing'), join(fs.project, '.roo/rules-code/dangling.md'));
  const text = await buildSystemPrompt(bySlug('code'), all, { projectRoot: fs.project, homeDir: fs.home });
  assert.match(text, /LINKED-FILE/);
  assert.match(text, /LINKED-DIR/);
});

test('without rule directories, .roorules-<slug> wins over .clinerules-<slug>', async (t) => {
  const fs = await tree(t);
  await fs.put('.roorules-debug', 'ROO-DEBUG');
  await fs.put('.clinerules-debug', 'CLINE-DEBUG');
  await fs.put('.clinerules', 'CLINE-ALL');
  let text = await buildSystemPrompt(bySlug('debug'), all, { projectRoot: fs.project, homeDir: fs.home });
  assert.match(text, /ROO-DEBUG/);
  assert.doesNotMatch(text, /CLINE-DEBUG/);
  assert.match(text, /# Rules file: \.clinerules\nCLINE-ALL/);
  await fs.put('.roorules-debug', '  ');
  text = await buildSystemPrompt(bySlug('debug'), all, { projectRoot: fs.project, homeDir: fs.home });
  assert.match(text, /CLINE-DEBUG/);
  assert.ok(ascending(positions(text, ['CLINE-DEBUG', 'CLINE-ALL'])));
});

test('general rules from .roo/rules/ replace the .roorules fallback, and mode rules come first', async (t) => {
  const fs = await tree(t);
  await fs.put('~/.roo/rules/g.md', 'HOME-GENERAL');
  await fs.put('.roorules', 'ROORULES');
  await fs.put('.roorules-ask', 'ASK-ONLY');
  const text = await buildSystemPrompt(bySlug('ask'), all, { projectRoot: fs.project, homeDir: fs.home });
  assert.doesNotMatch(text, /ROORULES/);
  assert.ok(ascending(positions(text, ['ASK-ONLY', 'HOME-GENERAL'])));
});

test('without a project root only the global rules are read', async (t) => {
  const fs = await tree(t);
  await fs.put('~/.roo/rules/g.md', 'HOME-GENERAL');
  const text = await buildSystemPrompt(bySlug('ask'), all, { projectRoot: null, homeDir: fs.home });
  assert.match(text, /HOME-GENERAL/);
});

test('rules are capped at maxRulesBytes and end with a note saying what was cut', async (t) => {
  const fs = await tree(t);
  await fs.put('.roo/rules-code/a.md', 'A'.repeat(300));
  await fs.put('.roo/rules-code/b.md', 'é'.repeat(400));
  await fs.put('.roo/rules-code/c.md', 'C'.repeat(100));
  await fs.put('.roo/rules/d.md', 'D'.repeat(100));
  const text = await buildSystemPrompt(bySlug('code'), all, { projectRoot: fs.project, homeDir: fs.home, maxRulesBytes: 1024 });
  const rules = text.slice(text.indexOf('# Rules file:'));
  const body = rules.slice(0, rules.indexOf('\n\n[Note:'));
  assert.ok(Buffer.byteLength(body) <= 1024, String(Buffer.byteLength(body)));
  assert.match(text, /A{300}/);
  assert.doesNotMatch(text, /\uFFFD/);
  assert.doesNotMatch(text, /CCC|DDD/);
  assert.match(text, /\[Note: the rules are limited to 1 KiB; \.roo\/rules-code\/b\.md was cut short and 2 more files were left out\.\]\n$/);
});

test('a single huge rules file is read only up to the cap', async (t) => {
  const fs = await tree(t);
  await fs.put('.roo/rules/huge.md', 'H'.repeat(200_000));
  const text = await buildSystemPrompt(bySlug('code'), all, { projectRoot: fs.project, homeDir: fs.home, maxRulesBytes: 2048 });
  assert.ok(text.length < 2048 + 6000);
  assert.match(text, /huge\.md was cut short/);
});
