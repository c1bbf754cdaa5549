// `export --to claude-code-plugin --marketplace` in the real Claude Code (pinned in agents.ts): the
// exported folder passes `claude plugin validate`, is added as a marketplace and installed from it,
// and the plugin's agent is held to its mode in another project, whose own .roomodes cannot loosen it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingAgents, PINS } from './agents.js';
import { AGENT, INSIDE, MARKER, OUTSIDE, expectLanded, expectRefused, exportModes, newProject, runAgent, runAgentCli, type Project } from './rig.js';

const skip = missingAgents(['claude-code']);
const PLUGIN = 'team-modes';
/** The plugin's agent as Claude Code names it, and as the hook receives it in agent_type. */
const SUBAGENT = `${PLUGIN}:${AGENT}`;
const DENIED = /^PreToolUse:Write hook error: Mode notes-writer \(roo-modes-server\): Tool 'Write' in mode 'Notes Writer' can only edit files matching pattern: \\\.md\$ .*Got: src\/app\.ts$/;
const BLOCKED = /failed; blocking because onFailure is "block"/;
/** The project where the agent runs: its own mode of the same slug allows every file. */
const LOOSE = `customModes:
  - slug: ${AGENT}
    name: Anything goes
    roleDefinition: This project's own mode, which the plugin must not follow. ${MARKER}
    groups:
      - read
      - edit
`;

/**
 * Exports the plugin from a team's project into a folder of its own, then adds that folder as a
 * marketplace and installs the plugin in the HOME of a second project, as a team member would.
 */
async function installedPlugin(t: { after(fn: () => void): void }): Promise<{ p: Project; dir: string }> {
  const team = newProject(t);
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'rms-plugin-')));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  await exportModes(team, ['--to', 'claude-code-plugin', '--out', dir, '--name', PLUGIN, '--marketplace']);
  const p = newProject(t, LOOSE);
  const validated = await runAgentCli('claude-code', p, ['plugin', 'validate', dir]);
  assert.equal(validated.code, 0, `claude plugin validate:\n${validated.stdout}${validated.stderr}`);
  assert.match(validated.stdout, new RegExp(`agents: ${SUBAGENT}`));
  for (const args of [['plugin', 'marketplace', 'add', dir], ['plugin', 'install', `${PLUGIN}@${PLUGIN}-marketplace`]]) {
    const r = await runAgentCli('claude-code', p, args);
    assert.equal(r.code, 0, `claude ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
  }
  return { p, dir };
}

describe(`claude-code ${PINS['claude-code'].version}: the plugin from a marketplace`, { concurrency: 3 }, () => {
  test('installed from the marketplace: the plugin\'s agent is refused outside its pattern and lands inside, in a folder never trusted', { skip }, async (t) => {
    const { p } = await installedPlugin(t);
    const r = await runAgent('claude-code', p, { subagent: SUBAGENT, writes: [OUTSIDE, INSIDE], trust: false });
    expectRefused(r, OUTSIDE, DENIED);
    expectLanded(r, INSIDE);
  });

  test('with node missing from PATH the plugin\'s check cannot start: the write inside the pattern is blocked too', { skip }, async (t) => {
    const { p } = await installedPlugin(t);
    const r = await runAgent('claude-code', p, { subagent: SUBAGENT, writes: [INSIDE], hide: ['node'] });
    expectRefused(r, INSIDE, BLOCKED);
  });

  test('control: the same plugin without its hooks.json writes inside and outside the pattern', { skip }, async (t) => {
    const { p, dir } = await installedPlugin(t);
    rmSync(join(dir, 'hooks', 'hooks.json'));
    const r = await runAgent('claude-code', p, { subagent: SUBAGENT, writes: [OUTSIDE, INSIDE] });
    expectLanded(r, OUTSIDE);
    expectLanded(r, INSIDE);
  });

  test('with the check file gone from the plugin, the write inside the pattern is blocked too', { skip }, async (t) => {
    const { p, dir } = await installedPlugin(t);
    rmSync(join(dir, 'hooks', 'roo-modes-check.cjs'));
    const r = await runAgent('claude-code', p, { subagent: SUBAGENT, writes: [INSIDE] });
    expectRefused(r, INSIDE, BLOCKED);
  });
});
