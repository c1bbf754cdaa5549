// Hostile project .roomodes files (catastrophic regexes, 50 MB, deep nesting, alias bombs, garbage)
// are refused or loaded in bounded time and memory with a clear error; the server keeps serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, startServer, type ServerProcess } from '../protocol/harness.js';
import { runSeed } from './prng.js';
import { MB, peakRssBytes } from './observe.js';
import { endAndDrain, scratchDir } from './drive.js';

const BUILTINS = ['code', 'architect', 'ask', 'debug', 'orchestrator'];
const CLI_LIMIT_MS = 10_000;
const RSS_LIMIT = 200 * MB;

/** Patterns that backtrack exponentially (or polynomially with a huge degree) on a crafted path. */
const CATASTROPHIC = ['(a+)+$', '(a|aa)+$', '(.*a){12}$', '^(\\w+\\s?)*$', '(x+x+)+y', '^(a|a?)+$'];

interface Case {
  name: string;
  content: () => Buffer | string;
  /** What the error about the file must say. */
  error: RegExp;
  /** Custom slugs that must load despite the bad parts. */
  kept?: string[];
  /** Slugs that must be refused. */
  refused?: string[];
  /** Each refused slug has its own error entry (mode-level problems, not file-level ones). */
  errorPerSlug?: boolean;
}

function aliasBomb(): string {
  let text = 'l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
  for (let i = 1; i <= 9; i++) text += `l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]\n`;
  return `${text}customModes:\n  - slug: bomb\n    name: Bomb\n    roleDefinition: *l9\n    groups: [read]\n`;
}

/** Few nodes, huge text: one long string named by aliases thousands of times (gigabytes once serialised). */
function textBomb(): string {
  let text = `s: &s "${'x'.repeat(500_000)}"\ncustomModes:\n`;
  for (let i = 0; i < 1500; i++) text += `  - slug: text-bomb-${i}\n    name: *s\n    roleDefinition: *s\n    whenToUse: *s\n    description: *s\n    customInstructions: *s\n    groups: [read]\n`;
  return text;
}

function cases(seedBytes: (n: number) => Buffer): Case[] {
  return [
    {
      name: 'catastrophic fileRegex patterns',
      content: () => `customModes:\n${CATASTROPHIC.map((re, i) => `  - slug: evil-${i}\n    name: Evil ${i}\n    roleDefinition: backtracks\n    groups:\n      - read\n      - - edit\n        - fileRegex: ${JSON.stringify(re)}\n`).join('')}  - slug: docs-only\n    name: Docs\n    roleDefinition: edits docs\n    groups: [read, [edit, {fileRegex: "\\\\.md$"}]]\n`,
      error: /fileRegex .* is refused because/,
      kept: ['docs-only'],
      refused: CATASTROPHIC.map((_, i) => `evil-${i}`),
      errorPerSlug: true,
    },
    {
      name: 'a 50 MB file',
      content: () => `customModes:\n  - slug: huge\n    name: Huge\n    roleDefinition: x\n    groups: [read]\n# ${'z'.repeat(50 * MB)}\n`,
      error: /bytes/,
      refused: ['huge'],
    },
    {
      name: 'a 9 MB file just under the size cap (loaded)',
      content: () => `customModes:\n${Array.from({ length: 2200 }, (_, i) => `  - slug: big-${i}\n    name: Big ${i}\n    roleDefinition: "${'r'.repeat(4000)}"\n    groups: [read]\n`).join('')}`,
      error: /^$/,
      kept: ['big-0', 'big-2199'],
    },
    {
      name: '10,000-level nesting in YAML flow collections',
      content: () => `customModes:\n  - slug: deep\n    name: Deep\n    roleDefinition: x\n    groups: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n  - slug: deep-map\n    name: Deep map\n    roleDefinition: ${'{a: '.repeat(10_000)}b${'}'.repeat(10_000)}\n    groups: [read]\n`,
      error: /nest|deep/i,
      refused: ['deep', 'deep-map'],
    },
    {
      name: '10,000-level nesting in a JSON .roomodes',
      content: () => `{"customModes":[{"slug":"deep","name":"Deep","roleDefinition":"x","groups":${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`,
      error: /nest|deep/i,
      refused: ['deep'],
    },
    {
      name: 'an alias bomb (billion laughs)',
      content: aliasBomb,
      error: /alias/i,
      refused: ['bomb'],
    },
    {
      name: 'aliases repeating one long string thousands of times',
      content: textBomb,
      error: /cannot parse the file: aliases expand to more than \d+ characters of text/,
      refused: ['text-bomb-0', 'text-bomb-1499'],
    },
    {
      name: 'binary garbage',
      content: () => seedBytes(1 * MB),
      error: /./,
    },
  ];
}

function runModesCli(projectRoot: string, home: string): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [MAIN, 'modes', '--json', '--project-root', projectRoot], {
      env: { ...process.env, HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_LIMIT_MS * 2);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr, ms: Date.now() - started }); });
  });
}

async function listedSlugs(s: ServerProcess, id: string): Promise<string[]> {
  const res = await s.tool(id, 'list_modes', {});
  assert.ok(res.result, `list_modes answers: ${JSON.stringify(res.error)}`);
  return (res.result.metadata.modes as { slug: string }[]).map((m) => m.slug);
}

test('refuses or loads each hostile .roomodes in bounded time and memory, with a clear error, and keeps serving', async (t) => {
  const rng = runSeed('hostile-files');
  for (const c of cases((n) => rng.bytes(n))) {
    await t.test(c.name, async (tt) => {
      const root = scratchDir(tt, 'rms-hostile-');
      const project = join(root, 'project');
      const home = join(root, 'home');
      mkdirSync(project);
      mkdirSync(home);
      const file = join(project, '.roomodes');
      writeFileSync(file, c.content());

      await tt.test('modes --json exits 0 promptly with the built-ins and a precise error', async () => {
        const cli = await runModesCli(project, home);
        assert.equal(cli.code, 0, `modes --json exits 0 (stderr: ${cli.stderr.slice(0, 600)})`);
        assert.ok(cli.ms < CLI_LIMIT_MS, `modes --json took ${cli.ms} ms`);
        const out = JSON.parse(cli.stdout) as { modes: { slug: string }[]; errors: { file: string; message: string; slug?: string }[] };
        const slugs = out.modes.map((m) => m.slug);
        for (const b of BUILTINS) assert.ok(slugs.includes(b), `built-in ${b} is still listed`);
        for (const k of c.kept ?? []) assert.ok(slugs.includes(k), `${k} loads`);
        for (const r of c.refused ?? []) assert.ok(!slugs.includes(r), `${r} is refused`);
        const fileErrors = out.errors.filter((e) => e.file === file);
        if (c.error.source === '^$') {
          assert.deepEqual(fileErrors, [], 'no error for a good file');
        } else {
          assert.ok(fileErrors.length > 0, `an error names ${file}: ${JSON.stringify(out.errors).slice(0, 400)}`);
          assert.ok(fileErrors.every((e) => e.message.length > 10), 'errors are sentences');
          assert.ok(fileErrors.some((e) => c.error.test(e.message)), `an error says ${c.error}: ${JSON.stringify(fileErrors).slice(0, 400)}`);
          for (const r of c.errorPerSlug ? c.refused ?? [] : []) {
            assert.ok(fileErrors.some((e) => e.slug === r && c.error.test(e.message)), `the error names the refused mode ${r}`);
          }
        }
      });

      await tt.test('the server keeps serving, reports the file on stderr, and stays small and fast', async (st) => {
        const server = startServer(st, { args: ['--project-root', project], env: { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code') } });
        await server.initialize();
        assert.deepEqual((await server.call('p1', 'ping')).result, {});
        const served = await listedSlugs(server, 'l1');
        for (const b of BUILTINS) assert.ok(served.includes(b), `the server still lists ${b}`);
        for (const k of c.kept ?? []) assert.ok(served.includes(k), `the server lists ${k}`);
        for (const r of c.refused ?? []) assert.ok(!served.includes(r), `the server does not list ${r}`);
        if (c.error.source !== '^$') assert.ok(server.stderr.includes(file), `stderr names ${file}: ${server.stderr.slice(0, 400)}`);
        const peak = peakRssBytes(server.child.pid!);
        assert.ok(peak < RSS_LIMIT, `server peak RSS ${(peak / MB).toFixed(1)} MB stays under ${RSS_LIMIT / MB} MB`);

        // Permission checks stay fast, even against paths built to make backtracking regexes explode.
        const slug = (c.kept ?? [])[0] ?? 'architect';
        const task = await server.tool('t1', 'create_task', { mode_slug: slug });
        assert.ok(task.result, `create_task in ${slug}: ${JSON.stringify(task.error)}`);
        const session = task.result.metadata.session_id as string;
        const started = Date.now();
        for (const [i, path] of ['a'.repeat(4000) + '!', `${'a'.repeat(2000)}\n`, `${'x'.repeat(3000)}`, `${'a '.repeat(1500)}!`].entries()) {
          const res = await server.tool(`v${i}`, 'validate_tool_use', { session_id: session, tool_name: 'write_to_file', file_path: path });
          assert.ok(res.result, `validate_tool_use answers: ${JSON.stringify(res.error)}`);
        }
        assert.ok(Date.now() - started < 2000, `four permission checks took ${Date.now() - started} ms`);
        for (const r of c.refused ?? []) {
          const res = await server.tool(`c-${r}`, 'create_task', { mode_slug: r });
          assert.equal(res.error?.code, -32001, `a refused mode ${r} is unknown (-32001)`);
        }
        assert.deepEqual(await endAndDrain(server), { code: 0, signal: null });
      });
    });
  }
});
