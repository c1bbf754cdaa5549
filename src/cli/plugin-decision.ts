// The entry of the decision file that `export --plugin` copies beside the OpenCode/Kilo plugin
// (bundled into dist/plugin-decision.cjs): the in-process decider, wired as `hook` wires its sources.
import { convertLegacyRoles } from '../modesets/legacy.js';
import { createDecider as decider, type Decider } from '../hook/in-process.js';

/** The decider for the project at `projectRoot`, with the environment of the agent's process. */
export function createDecider(projectRoot: string, env: NodeJS.ProcessEnv = process.env): Decider {
  return decider(projectRoot, env, convertLegacyRoles);
}
