// The Claude Code exports in the real `claude -p` (pinned in agents.ts) against the mock model: a
// subagent exported from a mode limited to Markdown writes outside and inside its pattern, its hooks
// running the check file the export wrote (the default), roo-modes-server, or serve --http.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { missingAgents, PINS } from './agents.js';
import { AGENT, INSIDE, MARKER, OUTSIDE, expectLanded, expectRefused, exportModes, newProject, runAgent } from './rig.js';
import { HttpServer } from '../protocol/http-harness.js';

const skip = missingAgents(['claude-code']);
/** The hook's refusal as Claude Code hands it to the model. */
const DENIED = /^PreToolUse:Write hook error: Mode notes-writer \(roo-modes-server\): Tool 'Write' in mode 'Notes Writer' can only edit files matching pattern: \\\.md\$ .*Got: src\/app\.ts$/;
const BLOCKED = /failed; blocking because onFailure is "block"/;
const TOKEN = 'agent-tier-token-0123456789abcdef';
const both = { subagent: AGENT, writes: [OUTSIDE, INSIDE] };

// Each case runs its own agent process; a few at a time share the machine's cores.
describe(`claude-code ${PINS['claude-code'].version}`, { concurrency: 4 }, () => {
  test('control: a subagent without hooks writes inside and outside the pattern', { skip }, async (t) => {
    const p = newProject(t);
    mkdirSync(join(p.root, '.claude', 'agents'), { recursive: true });
    writeFileSync(join(p.root, '.claude', 'agents', `${AGENT}.md`), `---\nname: ${AGENT}\ndescription: Writes the project's Markdown notes\ntools: Read, Edit, Write\n---\n\n${MARKER}\n`);
    const r = await runAgent('claude-code', p, both);
    expectLanded(r, OUTSIDE);
    expectLanded(r, INSIDE);
  });

  test('agent-file hooks running the check file in a trusted folder: refused outside the pattern, lands inside, nothing on PATH but node', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'claude-code']);
    const r = await runAgent('claude-code', p, both);
    expectRefused(r, OUTSIDE, DENIED);
    expectLanded(r, INSIDE);
    assert.equal(r.code, 0, 'a refused edit is the model\'s problem, not the session\'s');
    assert.match(r.log, /Registered 1 frontmatter hook\(s\) from agent 'notes-writer'/);
    assert.match(r.log, /node \$\{CLAUDE_PROJECT_DIR\}\/\.claude\/hooks\/roo-modes-check\.cjs hook claude-code --mode notes-writer/);
  });

  test('agent-file hooks when the session is the agent (--agent): refused outside the pattern, lands inside', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'claude-code']);
    const r = await runAgent('claude-code', p, { asAgent: AGENT, writes: [OUTSIDE, INSIDE] });
    expectRefused(r, OUTSIDE, DENIED);
    expectLanded(r, INSIDE);
  });

  test('agent-file hooks with node missing from PATH: the check cannot start and the write inside the pattern is blocked too', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'claude-code']);
    const r = await runAgent('claude-code', p, { subagent: AGENT, writes: [INSIDE], hide: ['node'] });
    expectRefused(r, INSIDE, BLOCKED);
    assert.match(r.log, /Executable not found in \$PATH: "node"/);
  });

  test('agent-file hooks with the check file removed: the write inside the pattern is blocked too', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'claude-code']);
    rmSync(join(p.root, '.claude', 'hooks', 'roo-modes-check.cjs'));
    const r = await runAgent('claude-code', p, { subagent: AGENT, writes: [INSIDE] });
    expectRefused(r, INSIDE, BLOCKED);
  });

  test('agent-file hooks in a folder never trusted: Claude Code skips them and the write outside lands (why --settings exists)', { skip }, async (t) => {
    const p = newProject(t);
    const exported = await exportModes(p, ['--to', 'claude-code']);
    assert.match(exported.stdout, /skips the hooks in agent files .* not trusted/);
    const r = await runAgent('claude-code', p, { ...both, trust: false });
    expectLanded(r, OUTSIDE);
    assert.match(r.log, /Skipping frontmatter hooks for agent 'notes-writer': the folder its definition file came from is not trusted/);
  });

  test('the settings hook (--settings) running the check file, in a copy of the project never trusted: refused outside the pattern, lands inside', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'claude-code', '--settings']);
    // A teammate's clone: another folder, the same files.
    const copy = realpathSync(mkdtempSync(join(tmpdir(), 'rms-agents-clone-')));
    t.after(() => rmSync(copy, { recursive: true, force: true }));
    cpSync(p.root, copy, { recursive: true });
    const r = await runAgent('claude-code', { root: copy, home: p.home }, { ...both, trust: false });
    expectRefused(r, OUTSIDE, DENIED);
    expectLanded(r, INSIDE);
    assert.match(r.log, /roo-modes-check\.cjs hook claude-code --by-agent/);
  });

  test('the settings hook with node missing from PATH: the write inside the pattern is blocked too', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'claude-code', '--settings']);
    const r = await runAgent('claude-code', p, { subagent: AGENT, writes: [INSIDE], trust: false, hide: ['node'] });
    expectRefused(r, INSIDE, BLOCKED);
  });

  test('the settings hook when the exported agent\'s mode was deleted afterwards: its write inside the old pattern is refused, naming the agent and the mode', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'claude-code', '--settings']);
    // The agent file stays; the mode file no longer has its mode. Untrusted: only the settings hook runs.
    writeFileSync(join(p.root, '.roomodes'), 'customModes: []\n');
    const r = await runAgent('claude-code', p, { subagent: AGENT, writes: [INSIDE], trust: false });
    expectRefused(r, INSIDE, /subagent "notes-writer" \(.*notes-writer\.md\) was exported from mode "notes-writer", which the mode files no longer define/);
  });

  test('agent-file hooks running roo-modes-server (--hook command): refused outside the pattern, lands inside', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'claude-code', '--hook', 'command']);
    const r = await runAgent('claude-code', p, { ...both, launcher: true });
    expectRefused(r, OUTSIDE, DENIED);
    expectLanded(r, INSIDE);
  });

  test('agent-file hooks running roo-modes-server, missing from PATH: the write inside the pattern is blocked too', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'claude-code', '--hook', 'command']);
    const r = await runAgent('claude-code', p, { subagent: AGENT, writes: [INSIDE] });
    expectRefused(r, INSIDE, BLOCKED);
    assert.match(r.log, /Executable not found in \$PATH: "roo-modes-server"/);
  });

  test('HTTP hooks asking serve --http: refused outside the pattern, lands inside', { skip }, async (t) => {
    const p = newProject(t);
    const server = new HttpServer(['--project-root', p.root], { ROO_MODES_HTTP_TOKEN: TOKEN });
    t.after(() => server.kill());
    const origin = new URL(await server.ready).origin;
    await exportModes(p, ['--to', 'claude-code', '--hook', 'http', '--url', `${origin}/hooks/claude-code`]);
    const r = await runAgent('claude-code', p, { ...both, env: { ROO_MODES_HTTP_TOKEN: TOKEN } });
    expectRefused(r, OUTSIDE, DENIED);
    expectLanded(r, INSIDE);
  });

  test('HTTP hooks with the server down: the write inside the pattern is blocked too', { skip }, async (t) => {
    const p = newProject(t);
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((ready) => probe.listen(0, '127.0.0.1', ready));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((closed) => probe.close(() => closed()));
    await exportModes(p, ['--to', 'claude-code', '--hook', 'http', '--url', `http://127.0.0.1:${port}/hooks/claude-code`]);
    const r = await runAgent('claude-code', p, { subagent: AGENT, writes: [INSIDE], env: { ROO_MODES_HTTP_TOKEN: TOKEN } });
    expectRefused(r, INSIDE, BLOCKED);
  });
});
