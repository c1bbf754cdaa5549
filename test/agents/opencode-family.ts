// The OpenCode and Kilo exports in the real CLIs (`opencode run`, `kilo run`), one set of cases for
// both since Kilo 7 is built on OpenCode: the agent's permission rules, and the in-process --plugin. It
// declares no test itself: each agent's test file does, so the runner runs and counts them apart.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT, INSIDE, MARKER, OUTSIDE, expectLanded, expectRefused, exportModes, newProject, runAgent } from './rig.js';

/** OpenCode's own refusal by a permission rule, as the model gets it. */
const RULE = /^The user has specified a rule which prevents you from using this specific tool call\. .*"permission":"edit"/;
/** The plugin's refusal: the hook's reason, thrown. */
export const DENIED = /^Mode notes-writer \(roo-modes-server\): Tool 'write' in mode 'Notes Writer' can only edit files matching pattern: \\\.md\$ .*Got: src\/app\.ts$/;

type Ctx = { after(fn: () => void): void };
export interface Case { name: string; run(t: Ctx): Promise<void> }

/** The cases, for the test file of each agent to declare. */
export function openCodeFamilyCases(agent: 'opencode' | 'kilo'): Case[] {
  const agentsDir = agent === 'kilo' ? '.kilo/agents' : '.opencode/agents';
  const decisionFile = agent === 'kilo' ? '.kilo/roo-modes/decision.cjs' : '.opencode/roo-modes/decision.cjs';
  const both = { subagent: AGENT, writes: [OUTSIDE, INSIDE] };
  return [
    { name: 'control: a subagent without permission rules writes inside and outside the pattern', run: async (t) => {
      const p = newProject(t);
      mkdirSync(join(p.root, agentsDir), { recursive: true });
      writeFileSync(join(p.root, agentsDir, `${AGENT}.md`), `---\ndescription: Writes the project's Markdown notes\nmode: subagent\n---\n\n${MARKER}\n`);
      const r = await runAgent(agent, p, both);
      expectLanded(r, OUTSIDE);
      expectLanded(r, INSIDE);
    } },

    { name: 'the exported agent\'s permission rules: the write outside the pattern is refused, the one inside lands', run: async (t) => {
      const p = newProject(t);
      await exportModes(p, ['--to', agent]);
      const r = await runAgent(agent, p, both);
      expectRefused(r, OUTSIDE, RULE);
      expectLanded(r, INSIDE);
    } },

    { name: 'the in-process plugin (--plugin) decides before the rules, with neither roo-modes-server nor node on PATH: refused outside the pattern with the mode\'s reason, lands inside', run: async (t) => {
      const p = newProject(t);
      await exportModes(p, ['--to', agent, '--plugin']);
      const r = await runAgent(agent, p, { ...both, hide: ['node'] });
      expectRefused(r, OUTSIDE, DENIED);
      expectLanded(r, INSIDE);
    } },

    { name: 'the plugin with its decision file removed: the write inside the pattern is blocked too', run: async (t) => {
      const p = newProject(t);
      await exportModes(p, ['--to', agent, '--plugin']);
      rmSync(join(p.root, decisionFile));
      const r = await runAgent(agent, p, { subagent: AGENT, writes: [INSIDE] });
      expectRefused(r, INSIDE, /^roo-modes-server: blocked: mode notes-writer could not be checked: the decision code cannot be loaded: cannot read .*decision\.cjs \(ENOENT\)/);
    } },

    { name: 'the plugin with its decision file changed by one byte: every write is blocked, none lands', run: async (t) => {
      const p = newProject(t);
      await exportModes(p, ['--to', agent, '--plugin']);
      const file = join(p.root, decisionFile);
      writeFileSync(file, readFileSync(file, 'utf8').replace("'use strict';", "'use strict'; "));
      const r = await runAgent(agent, p, both);
      for (const w of [OUTSIDE, INSIDE]) expectRefused(r, w, /^roo-modes-server: blocked: mode notes-writer could not be checked: the decision code cannot be loaded: .*decision\.cjs is not the decision code exported with this plugin/);
    } },
  ];
}
