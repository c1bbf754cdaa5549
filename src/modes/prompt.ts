// Composes a mode's system prompt: role, identity, tools, other modes, instructions, rules files.
// Deterministic for the same files; reads rules fresh on each call and never caches or writes.
import { StringDecoder } from 'node:string_decoder';
import type { Mode } from './types.js';
import { describeToolGroups } from './describe.js';
import { ALWAYS_AVAILABLE_TOOLS } from './tool-groups.js';
import { loadRules, type RuleFile } from './rules.js';

export const DEFAULT_MAX_RULES_BYTES = 64 * 1024;

export interface PromptContext { projectRoot: string | null; homeDir: string; maxRulesBytes?: number; useAgentRules?: boolean }

const SECTION_BREAK = '\n\n====\n\n';

function firstSentence(text: string): string {
  const m = /^[\s\S]*?[.!?](?=\s|$)/.exec(text.trim());
  return (m ? m[0] : text.trim()).replace(/\s+/g, ' ');
}

function identitySection(mode: Mode): string {
  const lines = ['MODE', '', `You are working in ${mode.name} mode (slug: ${mode.slug}).`];
  if (mode.description) lines.push(`In short: ${mode.description.trim()}${/[.!?]$/.test(mode.description.trim()) ? '' : '.'}`);
  if (mode.whenToUse) lines.push(`This mode is meant for the following: ${mode.whenToUse}`);
  return lines.join('\n');
}

function toolsSection(mode: Mode): string {
  const rows = describeToolGroups(mode);
  const lines = ['TOOLS', '', 'The tools you may use in this mode, by group:'];
  const enabled = rows.filter((r) => r.enabled);
  if (enabled.length === 0) lines.push('- (no tool groups: only the always-available tools below)');
  for (const r of enabled) {
    let limit = '';
    if (r.fileRegex !== undefined) limit = ` (only files whose path matches ${r.fileRegex}${r.description ? `: ${r.description}` : ''})`;
    let extra = '';
    if (r.group === 'mcp') extra = r.mcpTools ? `; MCP server tools matching ${r.mcpTools.join(', ')}` : '; and the tools of connected MCP servers (mcp__<server>__<tool>)';
    if (r.group === 'mcp' && r.mcpServers) extra += `; only from these MCP servers: ${r.mcpServers.join(', ') || 'none'}`;
    lines.push(`- ${r.group}${limit}: ${r.tools.join(', ')}${extra}`);
  }
  const missing = rows.filter((r) => !r.enabled).map((r) => r.group);
  if (missing.length > 0) lines.push(`Not available in this mode: ${missing.join(', ')}. Do not call their tools.`);
  lines.push(`Available in every mode: ${ALWAYS_AVAILABLE_TOOLS.join(', ')}.`);
  return lines.join('\n');
}

function modesSection(mode: Mode, all: readonly Mode[]): string | null {
  const others = all.filter((m) => m.slug !== mode.slug);
  if (others.length === 0) return null;
  const lines = [
    'OTHER MODES', '',
    'When another mode suits the work better, hand it over with switch_mode, or start a subtask in that mode with new_task. The modes:',
  ];
  for (const m of others) lines.push(`- ${m.name} (${m.slug}): ${m.whenToUse?.trim() ? m.whenToUse.trim().replace(/\s+/g, ' ') : firstSentence(m.roleDefinition)}`);
  return lines.join('\n');
}

/** Cuts a string to at most `bytes` UTF-8 bytes without splitting a character. */
function cutUtf8(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  return new StringDecoder('utf8').write(Buffer.from(text).subarray(0, Math.max(0, bytes)));
}

function sizeLabel(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/** The rules files as one section, capped at `max` bytes with a note when anything was left out. */
function rulesSection(files: readonly RuleFile[], max: number, withAgents: boolean): string | null {
  if (files.length === 0) return null;
  const blocks: string[] = [];
  let used = 0;
  let shortened: string | null = null;
  let omitted = 0;
  for (const [i, f] of files.entries()) {
    const header = `# Rules file: ${f.display}\n`;
    const gap = blocks.length > 0 ? 2 : 0;
    const block = `${header}${f.content}`;
    const size = Buffer.byteLength(block) + gap;
    if (shortened === null && used + size <= max && !f.cut) {
      blocks.push(block);
      used += size;
      continue;
    }
    if (shortened === null) {
      const room = max - used - gap - Buffer.byteLength(header);
      if (room > 0) {
        blocks.push(`${header}${cutUtf8(f.content, room)}`);
        shortened = f.display;
      } else {
        omitted = files.length - i;
        break;
      }
    } else {
      omitted++;
    }
  }
  let body = blocks.join('\n\n');
  if (shortened !== null || omitted > 0) {
    const parts = [];
    if (shortened !== null) parts.push(`${shortened} was cut short`);
    if (omitted > 0) parts.push(`${omitted} more file${omitted === 1 ? ' was' : 's were'} left out`);
    body += `\n\n[Note: the rules are limited to ${sizeLabel(max)}; ${parts.join(' and ')}.]`;
  }
  const order = withAgents
    ? 'first those for this mode, then the project\'s agent rules (AGENTS.md), then those for every mode'
    : 'first those for this mode, then those for every mode';
  return `RULES\n\nThese rules come from files: ${order}.\n\n${body}`;
}

/** The full system prompt of `mode`; `all` is the catalogue, for the list of other modes. */
export async function buildSystemPrompt(mode: Mode, all: readonly Mode[], ctx: PromptContext): Promise<string> {
  const max = ctx.maxRulesBytes ?? DEFAULT_MAX_RULES_BYTES;
  const rules = await loadRules(mode.slug, ctx, max);
  const sections = [mode.roleDefinition.trim(), identitySection(mode), toolsSection(mode)];
  const modes = modesSection(mode, all);
  if (modes) sections.push(modes);
  if (mode.customInstructions?.trim()) sections.push(`MODE INSTRUCTIONS\n\n${mode.customInstructions.trim()}`);
  // Roo's order (roo.md A5): mode rules, then AGENTS.md, then the generic rules.
  const rulesText = rulesSection([...rules.mode, ...rules.agents, ...rules.general], max, rules.agents.length > 0);
  if (rulesText) sections.push(rulesText);
  return `${sections.join(SECTION_BREAK)}\n`;
}
