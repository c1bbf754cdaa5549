// What `export --to gemini` writes beside the agent files: the policy file, covering every agent
// file an export left in .gemini/agents, and its entry in .gemini/settings.json. It edits no agent.
import { join } from 'node:path';
import { readdir, readFile } from 'node:fs/promises';
import type { Catalogue } from '../modes/catalogue.js';
import type { UpsertOutcome } from '../jsonc/edit.js';
import { provenance, writtenByExport } from '../export/source.js';
import type { CompiledMode } from '../modes/permissions.js';
import { GEMINI_POLICY_FILE, geminiAgentName, modeRules, orphanRules, policyText, type ModeRules } from '../export/gemini-policy.js';
import { GEMINI_SETTINGS_FILE, mergePolicyPaths } from '../export/gemini-settings.js';

export interface GeminiWriters {
  /** Writes (or checks) one file the export owns; false when refused, stale or failed. */
  place(file: string, text: string): Promise<boolean>;
  /** Merges into a JSON config shared with others; false when refused, stale or failed. */
  merge(file: string, merge: (text: string) => UpsertOutcome, what: string): Promise<boolean>;
}

/** Agent names of the files in .gemini/agents an export wrote (its mark in the first lines). */
async function exportedAgentFiles(folder: string): Promise<string[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const out: string[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith('.md')) continue;
    const text = await readFile(join(folder, name), 'utf8').catch(() => null);
    if (text !== null && writtenByExport(text)) out.push(name.slice(0, -3));
  }
  return out;
}

/**
 * Writes the policy and the settings entry. The policy holds the exported modes' rules and those
 * of every other agent file an earlier export left there: its mode's rules while the mode exists
 * (a partial export must not free the others), else no writes and no commands. It is the same
 * whichever modes were named, ordered by agent. Returns the agents of the second kind, which the
 * report names, and whether everything was written.
 */
export async function writeGeminiPolicy(outDir: string, exported: readonly CompiledMode[], catalogue: Catalogue, ctx: { projectRoot: string; homeDir: string }, w: GeminiWriters): Promise<{ ok: boolean; orphans: string[] }> {
  const entries = new Map<string, { rules: ModeRules; about: string }>();
  const add = (mode: CompiledMode): void => { entries.set(geminiAgentName(mode.slug), { rules: modeRules(mode), about: provenance(mode, ctx) }); };
  exported.forEach(add);
  const orphans: string[] = [];
  for (const agent of await exportedAgentFiles(join(outDir, '.gemini', 'agents'))) {
    if (entries.has(agent)) continue;
    const mode = catalogue.modes.find((m) => geminiAgentName(m.slug) === agent);
    if (mode !== undefined) add(mode);
    else {
      entries.set(agent, { rules: orphanRules(agent), about: 'an earlier export, for a mode that no longer exists' });
      orphans.push(agent);
    }
  }
  const sorted = [...entries.keys()].sort().map((agent) => entries.get(agent)!);
  const placed = await w.place(join(outDir, GEMINI_POLICY_FILE), policyText(sorted));
  const merged = await w.merge(join(outDir, GEMINI_SETTINGS_FILE), mergePolicyPaths, `policyPaths names ${GEMINI_POLICY_FILE}`);
  return { ok: placed && merged, orphans };
}
