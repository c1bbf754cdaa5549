// The Gemini CLI policy rules that hold one exported subagent to its mode (write tools by the
// edit pattern, shell by the command group), and the TOML file holding them all. Builds text only.
import type { CompiledMode } from '../modes/permissions.js';
import { EXPORT_MARK } from './source.js';
import { editArgsPattern } from './gemini-args.js';

/** Gemini CLI's tools that write files (gemini-cli-core 0.61: tools of kind Edit on project files). */
export const GEMINI_WRITE_TOOLS = ['write_file', 'replace'] as const;
export const GEMINI_SHELL_TOOL = 'run_shell_command';

/** Where the rules go; .gemini/settings.json names it under policyPaths (gemini-settings.ts says why). */
export const GEMINI_POLICY_FILE = '.gemini/policies/roo-modes.toml';

/**
 * The highest priority a policy file may give (Gemini adds it to its tier as priority/1000): above
 * "always allow" answers (.950) and YOLO's allow-all (default tier), so only an equal rule of the
 * same tier or any rule of a higher tier outranks it.
 */
const PRIORITY = 999;

export interface DenyRule {
  tools: readonly string[];
  /** Denies only the calls it matches; absent: every call (and Gemini hides the tool). */
  argsPattern?: string;
  message: string;
}

export interface ModeRules {
  /** The Gemini subagent name the rules apply to. */
  agent: string;
  denies: DenyRule[];
  /** Of GEMINI_WRITE_TOOLS, those the subagent keeps (for its tools list). */
  writeTools: string[];
  /** Where Gemini holds the mode to less than Roo would, or cannot hold it at all (for the report). */
  notes: string[];
}

/** Gemini wants lowercase letters, digits, `-` and `_`; Roo slugs are letters, digits and `-`. */
export const geminiAgentName = (slug: string): string => slug.toLowerCase();

/** The rules for one mode: its edit pattern on the write tools, and whole tools it lacks. */
export function modeRules(mode: CompiledMode): ModeRules {
  const who = `mode ${JSON.stringify(mode.name)} (${mode.slug})`;
  const agent = geminiAgentName(mode.slug);
  const denies: DenyRule[] = [];
  const notes: string[] = [];
  let writeTools: string[] = [...GEMINI_WRITE_TOOLS];
  const edit = mode.compiled.edit;
  if (!mode.compiled.groups.has('edit')) {
    denies.push({ tools: GEMINI_WRITE_TOOLS, message: `Refused: ${who} does not edit files.` });
    writeTools = [];
  } else if (edit !== null) {
    const t = edit.regex === null ? { ok: false as const, reason: 'Roo cannot use it either (it matches nothing there)' } : editArgsPattern(edit.fileRegex);
    const limit = `may edit only files whose path relative to the project root matches the regular expression ${edit.fileRegex}${edit.description ? ` (${edit.description})` : ''}`;
    if (!t.ok) {
      denies.push({ tools: GEMINI_WRITE_TOOLS, message: `Refused: ${who} ${limit}, which Gemini CLI's policy cannot check, so every edit is refused.` });
      notes.push(`every edit is refused: the edit pattern ${edit.fileRegex} has no exact Gemini policy form (${t.reason})`);
      writeTools = [];
    } else {
      const how = `Give the path relative to the project root, with / between folders and no . or .. segments${t.absolute ? '' : ' (absolute paths are refused for this mode)'}.`;
      if (!t.replace) {
        denies.push({ tools: ['replace'], message: `Refused: ${who} ${limit}; replace is refused because Gemini CLI may apply it to a file of the same name elsewhere in the workspace. Rewrite the file with write_file instead.` });
        writeTools = ['write_file'];
        notes.push(`the pattern ${edit.fileRegex} depends on where the path starts, so absolute paths and the replace tool are refused (Gemini CLI may apply replace to a file of the same name in another folder); write_file with a project-relative path remains`);
      }
      denies.push({ tools: writeTools, argsPattern: t.pattern, message: `Refused: ${who} ${limit}. ${how}` });
    }
  }
  if (!mode.compiled.groups.has('command')) denies.push({ tools: [GEMINI_SHELL_TOOL], message: `Refused: ${who} does not run commands.` });
  return { agent, denies, writeTools, notes };
}

/** Rules for an agent file an earlier export wrote for a mode that is gone: it may write and run nothing. */
export function orphanRules(agent: string): ModeRules {
  const message = `Refused: the subagent ${agent} was exported for a Roo mode that no longer exists; export again or delete .gemini/agents/${agent}.md.`;
  return { agent, denies: [{ tools: [...GEMINI_WRITE_TOOLS, GEMINI_SHELL_TOOL], message }], writeTools: [], notes: [] };
}

/**
 * A TOML basic string. JSON's escapes are all TOML escapes; TOML also wants DEL escaped and
 * allows no lone surrogate, which becomes U+FFFD.
 */
export function tomlString(s: string): string {
  return JSON.stringify(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')).replace(/\x7f/g, '\\u007f');
}

/** A literal string (no escapes) when the text allows one, which keeps a regex readable. */
const tomlRegex = (s: string): string => (/^[\x20-\x26\x28-\x7e]*$/.test(s) ? `'${s}'` : tomlString(s));

/** The policy file: a header, then per agent its provenance and its `[[rule]]` tables. */
export function policyText(entries: readonly { rules: ModeRules; about: string }[]): string {
  const out = [
    `# ${EXPORT_MARK} (export --to gemini); export again rather than editing.`,
    '# Deny rules scoped to each exported subagent: edits outside its mode\'s file pattern, and the',
    '# write and shell tools of modes without the edit or command group. See docs/integration.md.',
  ];
  for (const { rules, about } of entries) {
    out.push('', `# subagent ${rules.agent}: ${about}`);
    if (rules.denies.length === 0) out.push('# (no limits on writes or commands)');
    for (const d of rules.denies) {
      out.push('[[rule]]', `toolName = [${d.tools.map(tomlString).join(', ')}]`, `subagent = ${tomlString(rules.agent)}`);
      if (d.argsPattern !== undefined) out.push(`argsPattern = ${tomlRegex(d.argsPattern)}`);
      out.push('decision = "deny"', `priority = ${PRIORITY}`, `denyMessage = ${tomlString(d.message)}`);
    }
  }
  return `${out.join('\n')}\n`;
}
