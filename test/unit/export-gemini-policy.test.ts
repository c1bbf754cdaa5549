// The exported Gemini CLI policy, judged by Gemini's own policy engine (its core package, from a
// cache folder): for each mode pattern and each path in a table, its verdict must be ours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileMode, type CompiledMode } from '../../src/modes/permissions.js';
import { decideToolUse } from '../../src/modes/decide-tool-use.js';
import type { GroupEntry } from '../../src/modes/types.js';
import { modeRules, policyText, geminiAgentName } from '../../src/export/gemini-policy.js';
import { geminiAgent } from '../../src/export/gemini.js';
import { readRegex, onlyEndAnchored } from '../../src/export/regex-tree.js';
import { fakeFs } from './paths-fake-fs.js';

const VERSION = '0.61.0';
const CACHE = process.env.ROO_MODES_GEMINI_CORE
  ?? join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'roo-modes-server', `gemini-core-${VERSION}`);
const CORE = join(CACHE, 'node_modules', '@google', 'gemini-cli-core');
const INSTALL = `npm install --prefix ${CACHE} --no-save --no-package-lock @google/gemini-cli-core@${VERSION}`;

/** The project the table's absolute paths are about; it exists only in the fake file system. */
const ROOT = '/work/proj';
const FS = { '/work': 'dir', [ROOT]: 'dir', [`${ROOT}/docs`]: 'dir', [`${ROOT}/src`]: 'dir', '/o': 'dir' };

/** Mode patterns: translated exactly, or (the last ones) refused whole. */
const PATTERNS = [
  '\\.md$', '^docs/.*', '^src/.*\\.(ts|tsx)$', '(a|b)+\\.md$', 'docs/', '\\bREADME\\.md$', '^(docs|notes)/[a-z]{2,4}\\.md$',
  '.*', '(\\.test)?\\.ts$', '[^/]+\\.json$', '^[^.]*$', 'ü|😀', '^[^d]', 'proj/',
  '(ab)+\\.md$', '(?i)\\.md$',
];

const PATHS = [
  // relative
  'a.md', 'docs/a.md', 'docs/sub/b.md', 'src/x.ts', 'src/deep/y.tsx', 'src/x.js', 'notes/ab.md', 'README.md', 'docs/README.md',
  'xREADME.md', 'docs', 'docsx/a.md', 'mydocs/a.md', 'x.test.ts', 'a.json', 'dir/a.json', 'Makefile', 'ab.md', 'abab.md', 'c.md',
  // ./ and ..
  './docs/a.md', './src/x.ts', './a.md', '././docs/a.md', '../a.md', 'docs/../a.md', 'docs/../../x.md', 'src/../docs/a.md',
  'docs/./a.md', '../proj/docs/a.md', '..', '.', './',
  // absolute, inside and outside the project
  `${ROOT}/docs/a.md`, `${ROOT}/src/x.ts`, `${ROOT}/a.md`, `${ROOT}/src/docs/a.md`, `${ROOT}/docs/../src/x.ts`, `${ROOT}//a.md`,
  '/etc/x.md', '/work/other/a.md', '/a.md', '/', `${ROOT}/README.md`,
  // Windows separators and drives
  'docs\\a.md', 'src\\x.ts', 'docs\\..\\src\\x.ts', 'C:\\work\\proj\\docs\\a.md', 'C:/work/proj/a.md', '\\\\server\\share\\a.md',
  // unicode
  'docs/ünïcödé.md', 'docs/日本語.md', 'docs/😀.md', 'src/ä.ts', 'docs/\u2028.md', 'ü', 'x/😀', 'docs/\ud800.md',
  // spellings Gemini reads differently
  'docs//a.md', 'docs/a.md/', '%2e%2e/a.md', 'docs/%41.md', '@docs/a.md', '~/a.md', '.gemini/agents/x.md', 'docs/.gemini/x.md',
  'docs/"q".md', 'docs/a\u0000.md', 'docs/a\u007f.md', 'a.md ', '',
];

const mode = (slug: string, groups: GroupEntry[]): CompiledMode => compileMode({ slug, name: slug, roleDefinition: `Mode ${slug}.`, groups, source: 'project' });
const MODES = PATTERNS.map((p, i) => mode(`m${i}`, ['read', ['edit', { fileRegex: p }]]));
const NO_EDIT = mode('reader', ['read']);
const WITH_COMMAND = mode('builder', ['read', 'edit', 'command']);

/** Our own verdict: the decision validate_tool_use and the hooks give for an edit of `path`. */
const ours = (m: CompiledMode, path: string): boolean =>
  decideToolUse(m, 'write_to_file', { path }, { projectRoot: ROOT, confineToProjectRoot: true }, fakeFs(FS)).allowed;

/** True when the pattern holds whatever folders stand before a match (no `^`, no `\b`): see gemini-args.ts. */
const tailSafe = (p: string): boolean => onlyEndAnchored(readRegex(p));

/**
 * Why the exported rules refuse a path Roo would allow, or null: the spellings Gemini reads
 * differently than the policy sees them, and absolute paths whose project-relative tail is not
 * known. Written as plain string logic, apart from the regex code it checks.
 */
function stricter(pattern: string, path: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f"%\\]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(path)) return 'a character JSON escapes, or %';
  if (/^[@~]|^[A-Za-z]:/.test(path)) return 'a leading @, ~ or drive';
  const absolute = path.startsWith('/');
  const segments = (absolute ? path.slice(1) : path.replace(/^\.\//, '')).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return 'an empty, . or .. segment';
  if (segments.includes('.gemini')) return 'the .gemini folder';
  if (absolute && !(tailSafe(pattern) && new RegExp(pattern).test(segments[segments.length - 1]!))) return 'absolute, no tail known to match';
  return null;
}

/** Absolute paths outside the project that the rules let through: Gemini's own workspace check refuses them. */
const outside = (path: string): boolean => path.startsWith('/') && !path.startsWith(`${ROOT}/`);

interface Engine { check(call: { name: string; args: Record<string, unknown> }, server?: string, ann?: unknown, subagent?: string): Promise<{ decision: string }> }
interface Core {
  loadPoliciesFromToml(paths: string[], tier: (p: string) => number): Promise<{ rules: unknown[]; errors: { message: string; details?: string }[] }>;
  PolicyEngine: new (config: Record<string, unknown>) => Engine;
  parseAgentMarkdown(file: string, content: string): Promise<{ name: string; tools?: string[] }[]>;
}

async function loadCore(): Promise<Core> {
  const at = (p: string): string => pathToFileURL(join(CORE, 'dist', 'src', p)).href;
  // The engine logs each decision with console.debug: quiet it before anything runs.
  const { debugLogger } = await import(at('utils/debugLogger.js')) as { debugLogger: { debug: (...a: unknown[]) => void } };
  debugLogger.debug = () => {};
  const [toml, engine, agents] = await Promise.all([import(at('policy/toml-loader.js')), import(at('policy/policy-engine.js')), import(at('agents/agentLoader.js'))]);
  return { loadPoliciesFromToml: toml.loadPoliciesFromToml, PolicyEngine: engine.PolicyEngine, parseAgentMarkdown: agents.parseAgentMarkdown } as Core;
}

const present = existsSync(join(CORE, 'package.json'));
if (!present) test('the exported Gemini policy in Gemini\'s own engine', { skip: `Gemini CLI's core package is not installed; to run these tests: ${INSTALL}` }, () => {});

if (present) {
  const dir = mkdtempSync(join(tmpdir(), 'rms-gemini-'));
  const file = join(dir, 'roo-modes.toml');
  const all = [...MODES, NO_EDIT, WITH_COMMAND];
  writeFileSync(file, policyText(all.map((m) => ({ rules: modeRules(m), about: m.slug }))));
  const core = await loadCore();
  const loaded = await core.loadPoliciesFromToml([file], () => 4);
  const verdict = async (engine: Engine, tool: string, path: string, agent: string | undefined): Promise<boolean> =>
    (await engine.check({ name: tool, args: { file_path: path, content: 'x' } }, undefined, undefined, agent)).decision !== 'deny';
  // Only the exported rules decide: whatever they do not deny is allowed.
  const engine = new core.PolicyEngine({ rules: loaded.rules, approvalMode: 'default', defaultDecision: 'allow' });
  test.after(() => rmSync(dir, { recursive: true, force: true }));

  test('Gemini\'s loader accepts every exported rule: none is dropped as unsafe or invalid', () => {
    assert.deepEqual(loaded.errors.map((e) => `${e.message}: ${e.details ?? ''}`), []);
    const expected = all.flatMap((m) => modeRules(m).denies.flatMap((d) => d.tools)).length;
    assert.equal(loaded.rules.length, expected);
  });

  test('for every pattern and path, Gemini\'s policy engine decides an edit by the subagent as we do', async () => {
    const counts = { same: 0, stricter: 0, outside: 0 };
    for (const [i, m] of MODES.entries()) {
      const pattern = PATTERNS[i]!;
      const agent = geminiAgentName(m.slug);
      const refusedWhole = m.compiled.edit?.regex === null || !modeRules(m).denies.some((d) => d.argsPattern !== undefined);
      for (const path of PATHS) {
        const theirs = await verdict(engine, 'write_file', path, agent);
        const mine = ours(m, path);
        const why = `${pattern} on ${JSON.stringify(path)}: Gemini ${theirs ? 'allows' : 'denies'}, we ${mine ? 'allow' : 'deny'}`;
        if (refusedWhole) { assert.equal(theirs, false, why); continue; }
        const reason = stricter(pattern, path);
        if (theirs === mine) counts.same++;
        else if (!theirs && reason !== null) counts.stricter++;
        else if (theirs && !mine && outside(path)) counts.outside++;
        else assert.fail(`${why}${reason ? ` (${reason})` : ''}`);
        if (mine && reason === null) assert.equal(theirs, true, `${why}: only a listed spelling may be refused`);
        // replace: the same verdict where the pattern allows it at all, else always refused.
        assert.equal(await verdict(engine, 'replace', path, agent), tailSafe(pattern) && theirs, `replace: ${why}`);
      }
    }
    // Most rows agree outright; the rest are the listed spellings, or left to Gemini's workspace check.
    assert.ok(counts.same > counts.stricter + counts.outside, JSON.stringify(counts));
    assert.ok(counts.stricter > 0 && counts.outside > 0, JSON.stringify(counts));
  });

  test('the rules hold only the subagent they name: other subagents and the main session are not touched', async () => {
    const agent = geminiAgentName(MODES[1]!.slug);
    assert.equal(await verdict(engine, 'write_file', 'src/x.ts', agent), false);
    assert.equal(await verdict(engine, 'write_file', 'src/x.ts', 'someone-else'), true);
    assert.equal(await verdict(engine, 'write_file', 'src/x.ts', undefined), true);
  });

  test('a mode without edit loses the write tools and one without command the shell, whatever the arguments', async () => {
    for (const tool of ['write_file', 'replace']) {
      assert.equal(await verdict(engine, tool, 'docs/a.md', 'reader'), false, tool);
      assert.equal(await verdict(engine, tool, 'docs/a.md', 'builder'), true, tool);
    }
    const shell = async (agent: string): Promise<string> => (await engine.check({ name: 'run_shell_command', args: { command: 'ls' } }, undefined, undefined, agent)).decision;
    assert.equal(await shell('reader'), 'deny');
    assert.equal(await shell(geminiAgentName(MODES[0]!.slug)), 'deny');
    assert.notEqual(await shell('builder'), 'deny');
  });

  test('a call without a string file_path is refused under an edit pattern', async () => {
    const agent = geminiAgentName(MODES[0]!.slug);
    for (const args of [{ content: 'x' }, { file_path: 7, content: 'x' }, { file_path: ['a.md'] }, { path: 'a.md', content: 'x' }]) {
      assert.equal((await engine.check({ name: 'write_file', args }, undefined, undefined, agent)).decision, 'deny', JSON.stringify(args));
    }
  });

  test('the rules outrank Gemini\'s own defaults, YOLO\'s allow-all included', async () => {
    const defaults = await core.loadPoliciesFromToml([join(CORE, 'dist', 'src', 'policy', 'policies')], () => 1);
    const yolo = new core.PolicyEngine({ rules: [...defaults.rules, ...loaded.rules], approvalMode: 'yolo', nonInteractive: true });
    const agent = geminiAgentName(MODES[0]!.slug);
    assert.equal(await verdict(yolo, 'write_file', 'src/x.ts', agent), false);
    assert.equal(await verdict(yolo, 'write_file', 'docs/a.md', agent), true);
  });

  test('each exported agent file is read by Gemini\'s own agent loader, with its name and tools', async () => {
    for (const m of all) {
      const prepared = { mode: m, body: `${m.roleDefinition}\n`, provenance: `mode ${m.slug}`, description: m.roleDefinition };
      const out = geminiAgent(prepared);
      const [agent] = await core.parseAgentMarkdown(join(dir, out.path!), out.text!);
      assert.equal(agent!.name, geminiAgentName(m.slug));
      assert.deepEqual(agent!.tools?.filter((t) => t === 'write_file' || t === 'replace'), modeRules(m).writeTools, m.slug);
    }
  });
}
