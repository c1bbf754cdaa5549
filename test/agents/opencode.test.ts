// The OpenCode-family cases (opencode-family.ts) in the real `opencode run`, pinned in agents.ts; in a
// file of its own so that the runner runs it beside the other agents and counts it apart.
import { describe, test } from 'node:test';
import { missingAgents, PINS } from './agents.js';
import { DENIED, openCodeFamilyCases } from './opencode-family.js';
import { AGENT, INSIDE, OUTSIDE, expectLanded, expectRefused, exportModes, newProject, runAgent } from './rig.js';

const skip = missingAgents(['opencode']);

// Each run is CPU-bound in the agent itself; the cases share the machine's cores.
describe(`opencode ${PINS.opencode.version}`, { concurrency: 4 }, () => {
  for (const c of openCodeFamilyCases('opencode')) test(c.name, { skip }, (t) => c.run(t));

  // The plugin learns the agent of the session itself, not only of subagents (Kilo is left out: the same code, twice the time).
  test('the plugin when the session is the agent (--agent): refused outside the pattern, lands inside', { skip }, async (t) => {
    const p = newProject(t);
    await exportModes(p, ['--to', 'opencode', '--plugin']);
    const r = await runAgent('opencode', p, { asAgent: AGENT, writes: [OUTSIDE, INSIDE] });
    expectRefused(r, OUTSIDE, DENIED);
    expectLanded(r, INSIDE);
  });
});
