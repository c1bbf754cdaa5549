// An agent file an export wrote whose mode is gone: the by-agent hook finds no mode for the agent,
// yet the agent still runs with the restriction it was exported for. Reads the agent file's first
// lines only, never judges a call.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Catalogue } from '../modes/catalogue.js';
import { exportedModeOf, writtenByExport } from '../export/mark.js';

/** How much of an agent file is read to find the export's mark (it sits in the first lines). */
const AGENT_HEAD_BYTES = 4096;

/** Claude Code's agent names are plain words: a name that could step out of the folder is none of ours. */
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * When no mode is exported as `agentType` but the agent Claude Code runs under that name is a file
 * an export wrote (the project's .claude/agents/<name>.md, which wins over the user's
 * ~/.claude/agents/<name>.md), its mode was renamed or deleted after the export: letting its calls
 * through unjudged would drop the restriction it was exported with. Returns why the call is refused
 * (naming the agent and its mode), or null for any other agent.
 */
export async function orphanedAgent(catalogue: Catalogue, agentType: string, projectRoot: string, home: string): Promise<string | null> {
  if (!AGENT_NAME.test(agentType)) return null;
  for (const dir of [join(projectRoot, '.claude', 'agents'), join(home, '.claude', 'agents')]) {
    const file = join(dir, `${agentType}.md`);
    const head = await readHead(file);
    if (head === null) continue;
    if (!writtenByExport(head)) return null;
    const problems = catalogue.issues.slice(0, 3).map((i) => `${i.file}:${i.line ?? 1}: ${i.message}`);
    return `subagent "${agentType}" (${file}) was exported from mode "${exportedModeOf(head) ?? agentType}", which the mode files no longer define`
      + ` (the modes in force: ${catalogue.slugs().join(', ')}${problems.length > 0 ? `; problems in the mode files: ${problems.join('; ')}` : ''});`
      + ' its calls are refused until the mode is back or the agent file is deleted';
  }
  return null;
}

/** The first bytes of a file, or null when there is none. */
async function readHead(file: string): Promise<string | null> {
  let handle;
  try { handle = await open(file, 'r'); } catch (err) {
    if (err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return null;
    throw err;
  }
  try {
    const buf = Buffer.alloc(AGENT_HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, AGENT_HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
