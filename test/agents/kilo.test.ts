// The OpenCode-family cases (opencode-family.ts) in the real `kilo run`, pinned in agents.ts; in a
// file of its own so that the runner runs it beside the other agents and counts it apart.
import { describe, test } from 'node:test';
import { missingAgents, PINS } from './agents.js';
import { openCodeFamilyCases } from './opencode-family.js';

const skip = missingAgents(['kilo']);

// Each run is CPU-bound in the agent itself; the cases share the machine's cores.
describe(`kilo ${PINS.kilo.version}`, { concurrency: 4 }, () => {
  for (const c of openCodeFamilyCases('kilo')) test(c.name, { skip }, (t) => c.run(t));
});
