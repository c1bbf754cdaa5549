// Names the exported policy file under policyPaths in .gemini/settings.json, the one way Gemini CLI
// 0.61 loads a project's policy file. Edits text in place; never drops another's entry or key.
import { JSONC, parseJson } from '../jsonc/read.js';
import { setTopMember, type UpsertOutcome } from '../jsonc/edit.js';
import { GEMINI_POLICY_FILE } from './gemini-policy.js';

// Why settings: Gemini CLI 0.61 does not read .gemini/policies/ (its workspace tier is switched
// off by a constant, gemini-cli issue #18186). It does read the files that settings name under
// `policyPaths`, at the user tier, resolved against the folder it runs in; the project's
// settings count only in a trusted folder, which is also when it loads the project's agents.
// A non-empty `policyPaths` replaces the user's own policy folder, so a new list names that
// folder too (`~/` is expanded by Gemini, so the file holds no path of this machine).

export const GEMINI_SETTINGS_FILE = '.gemini/settings.json';
const USER_POLICIES = '~/.gemini/policies';

/** The settings text with GEMINI_POLICY_FILE in `policyPaths` (added once, after the entries there). */
export function mergePolicyPaths(text: string): UpsertOutcome {
  const base = text.trim() === '' ? '{}\n' : text;
  const root = parseJson(base, JSONC).root.value;
  if (typeof root !== 'object' || root === null || Array.isArray(root)) return { ok: false, reason: 'the top level is not a JSON object' };
  const current = (root as Record<string, unknown>).policyPaths;
  if (current !== undefined && !(Array.isArray(current) && current.every((p) => typeof p === 'string'))) {
    return { ok: false, reason: '"policyPaths" is not an array of strings' };
  }
  if (current?.includes(GEMINI_POLICY_FILE)) return { ok: true, action: 'unchanged', text };
  const next = current === undefined || current.length === 0 ? [GEMINI_POLICY_FILE, USER_POLICIES] : [...current, GEMINI_POLICY_FILE];
  return setTopMember(base, JSONC, 'policyPaths', next);
}
