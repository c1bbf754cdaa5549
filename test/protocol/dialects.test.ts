// Protocol tests of the living dialects through the built server and CLI: Zoo (web group,
// allowedMcpServers), Kilo (.kilocodemodes, its global files, iconName) and Roo's export format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { MAIN, startServer, tempDir, type Msg, type ServerProcess } from './harness.js';

const run = promisify(execFile);
const FIXTURES = fileURLToPath(new URL('../fixtures/dialects/', import.meta.url));
type Loose = Msg['result'];

/** Kilo's editor storage file for VS Code on this platform (the table's first editor). */
function kiloEditorFile(home: string): string {
  const base = process.platform === 'darwin' ? join(home, 'Library', 'Application Support')
    : process.platform === 'win32' ? join(home, 'AppData', 'Roaming') : join(home, '.config');
  return join(base, 'Code', 'User', 'globalStorage', 'kilocode.kilo-code', 'settings', 'custom_modes.yaml');
}

function put(fixture: string, target: string): string {
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(FIXTURES, fixture), target);
  return target;
}

/** A project with the Zoo .roomodes and the Kilo .kilocodemodes, and Kilo's two global files in HOME. */
function dialectProject(t: Parameters<typeof tempDir>[0]): { project: string; home: string; files: Record<string, string> } {
  const project = tempDir(t, 'rms-dialect-');
  const home = tempDir(t, 'rms-home-');
  const files = {
    zoo: put('zoo.roomodes', join(project, '.roomodes')),
    kilo: put('kilo.kilocodemodes', join(project, '.kilocodemodes')),
    kiloCli: put('kilo-global.yaml', join(home, '.kilocode', 'cli', 'global', 'settings', 'custom_modes.yaml')),
    kiloEditor: put('kilo-global.yaml', kiloEditorFile(home)),
  };
  return { project, home, files };
}

async function server(t: Parameters<typeof startServer>[0], project: string, home: string): Promise<ServerProcess> {
  const s = startServer(t, { args: ['--project-root', project], env: { HOME: home, ROO_CONFIG_DIR: join(home, '.roo-code') } });
  await s.initialize('2025-06-18');
  return s;
}

test('Zoo and Kilo files load with their precedence, each mode showing its file', async (t) => {
  const { project, home, files } = dialectProject(t);
  const s = await server(t, project, home);
  const res = await s.tool(1, 'list_modes');
  const rows = res.result.structuredContent.modes as Loose[];
  const bySlug = new Map(rows.map((r: Loose) => [r.slug, r]));
  assert.equal(bySlug.get('researcher').file, files.zoo);
  assert.equal(bySlug.get('translator').file, files.kilo);
  assert.equal(bySlug.get('translator').icon_name, 'codicon-globe');
  // Defined in both project files: .roomodes wins over .kilocodemodes.
  assert.equal(bySlug.get('shared').name, 'Shared (from .roomodes)');
  assert.equal(bySlug.get('shared').file, files.zoo);
  // Defined in Kilo's CLI file and its editor storage: the CLI file wins; it is a global mode.
  assert.equal(bySlug.get('kilo-reviewer').file, files.kiloCli);
  assert.equal(bySlug.get('kilo-reviewer').source, 'global');
  assert.match(res.result.content[0].text, /Translator \(translator\) — project \(.*\.kilocodemodes\)/);

  const info = (await s.tool(2, 'get_mode_info', { mode_slug: 'translator' })).result.structuredContent;
  assert.equal(info.declared_source, 'organization');
  assert.equal(info.icon_name, 'codicon-globe');
  assert.deepEqual(info.tool_groups.edit, { enabled: true, file_regex: '(^|/)locales/.*\\.json$', description: 'Locale files only' });
  assert.equal(info.tool_groups.browser.enabled, true);
  const zoo = (await s.tool(3, 'get_mode_info', { mode_slug: 'researcher', include_system_prompt: true })).result.structuredContent;
  assert.deepEqual(zoo.allowed_mcp_servers, ['github']);
  assert.deepEqual(zoo.tool_groups.web, { enabled: true });
  assert.deepEqual(zoo.tool_groups.mcp, { enabled: true, allowed_mcp_servers: ['github'] });
  assert.match(zoo.system_prompt, /- web: fetch_web_content/);
  assert.match(zoo.system_prompt, /only from these MCP servers: github/);
  s.assertStdoutPure();
});

/** validate_tool_use in a fresh task of `mode`: [allowed, error code name or undefined]. */
async function verdict(s: ServerProcess, id: string, mode: string, tool: string): Promise<[boolean, string | undefined]> {
  const task = await s.tool(`${id}-task`, 'create_task', { mode_slug: mode });
  const sid = task.result.structuredContent.session_id;
  const r = (await s.tool(id, 'validate_tool_use', { session_id: sid, tool_name: tool })).result.structuredContent;
  return [r.allowed, r.error];
}

test('a Zoo web mode may use fetch_web_content; a mode without web may not', async (t) => {
  const { project, home } = dialectProject(t);
  const s = await server(t, project, home);
  assert.deepEqual(await verdict(s, 'a', 'researcher', 'fetch_web_content'), [true, undefined]);
  assert.deepEqual(await verdict(s, 'b', 'code', 'fetch_web_content'), [false, 'TOOL_RESTRICTION_ERROR']);
  assert.deepEqual(await verdict(s, 'c', 'translator', 'fetch_web_content'), [false, 'TOOL_RESTRICTION_ERROR']);
});

test('allowedMcpServers limits MCP tools, intersected with the mcp allow-list', async (t) => {
  const { project, home } = dialectProject(t);
  const s = await server(t, project, home);
  assert.deepEqual(await verdict(s, 'a', 'researcher', 'mcp__github__create_issue'), [true, undefined]);
  assert.deepEqual(await verdict(s, 'b', 'researcher', 'mcp__slack__post'), [false, 'TOOL_RESTRICTION_ERROR']);
  assert.deepEqual(await verdict(s, 'c', 'researcher', 'mcp_github_create_issue'), [true, undefined]);
  assert.deepEqual(await verdict(s, 'd', 'researcher', 'mcp_slack_post'), [false, 'TOOL_RESTRICTION_ERROR']);
  // librarian: tools mcp__github__get_* and mcp__slack__*; servers github and docs.
  assert.deepEqual(await verdict(s, 'e', 'librarian', 'mcp__github__get_issue'), [true, undefined]);
  assert.deepEqual(await verdict(s, 'f', 'librarian', 'mcp__github__create_issue'), [false, 'TOOL_RESTRICTION_ERROR']);
  assert.deepEqual(await verdict(s, 'g', 'librarian', 'mcp__slack__post'), [false, 'TOOL_RESTRICTION_ERROR']);
  assert.deepEqual(await verdict(s, 'h', 'librarian', 'mcp__docs__search'), [false, 'TOOL_RESTRICTION_ERROR']);
  // A mode without allowedMcpServers keeps every server.
  assert.deepEqual(await verdict(s, 'i', 'code', 'mcp__slack__post'), [true, undefined]);
});

test('modes --json lists the export format with its rules files ignored and unknown keys warned once', async (t) => {
  const project = tempDir(t, 'rms-export-');
  const home = tempDir(t, 'rms-home-');
  const file = put('export.yaml', join(project, '.roomodes'));
  const { stdout } = await run(process.execPath, [MAIN, 'modes', '--json', '--project-root', project, '--config-dir', join(home, 'none')], { env: { ...process.env, HOME: home } });
  const out = JSON.parse(stdout);
  const mode = out.modes.find((m: Loose) => m.slug === 'exported');
  assert.deepEqual(mode.groups, ['read', ['edit', { fileRegex: '\\.ts$' }]]);
  assert.equal(mode.file, file);
  assert.deepEqual(out.errors, []);
  assert.equal(out.warnings.length, 1);
  assert.match(out.warnings[0].message, /enabled \(in exported\)/);
  assert.doesNotMatch(out.warnings[0].message, /rulesFiles|source/);
});
