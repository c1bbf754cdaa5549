// Roo's export format, written: `{customModes: [mode]}` with the mode's rules files gathered as
// Roo 3.52 gathers them (top level of rules-<slug>/ only, trimmed, empty ones left out). Read-only.
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Mode } from '../modes/types.js';
import { modeToPlain } from './mode-file-edit.js';
import { topLevelFiles } from './mode-writes.js';
import { toYaml } from '../yaml/write.js';

/** Bounds of what one export gathers (the same as one import accepts). */
export const RULES_LIMITS = { maxFiles: 500, maxFileBytes: 1024 * 1024, maxTotalBytes: 8 * 1024 * 1024 } as const;

export interface ExportedRule { relativePath: string; content: string }
export interface ModeExport {
  text: string;
  rulesDir: string | null;
  rulesFiles: ExportedRule[];
  /** Files of the folder left out, with why (too large, too many, unreadable). */
  skipped: { relativePath: string; reason: string }[];
}

/** Where Roo looks for a mode's rules on export: ~/.roo for a global mode, the project's .roo otherwise. */
export function exportRulesDir(mode: Mode, ctx: { projectRoot: string | null; homeDir: string }): string | null {
  if (mode.source === 'global') return join(resolve(ctx.homeDir), '.roo', `rules-${mode.slug}`);
  return ctx.projectRoot === null ? null : join(resolve(ctx.projectRoot), '.roo', `rules-${mode.slug}`);
}

async function readBounded(path: string, max: number): Promise<string | null> {
  const handle = await open(path, 'r').catch(() => null);
  if (!handle) return null;
  try {
    if ((await handle.stat()).size > max) return null;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

export async function exportMode(mode: Mode, ctx: { projectRoot: string | null; homeDir: string }): Promise<ModeExport> {
  const rulesDir = exportRulesDir(mode, ctx);
  const rulesFiles: ExportedRule[] = [];
  const skipped: ModeExport['skipped'] = [];
  let total = 0;
  for (const name of rulesDir === null ? [] : await topLevelFiles(rulesDir)) {
    if (rulesFiles.length >= RULES_LIMITS.maxFiles) { skipped.push({ relativePath: name, reason: `more than ${RULES_LIMITS.maxFiles} rules files` }); continue; }
    const text = await readBounded(join(rulesDir!, name), RULES_LIMITS.maxFileBytes);
    if (text === null) { skipped.push({ relativePath: name, reason: `unreadable or larger than ${RULES_LIMITS.maxFileBytes} bytes` }); continue; }
    const content = text.trim();
    if (content === '') continue; // Roo leaves empty rules files out
    total += Buffer.byteLength(content);
    if (total > RULES_LIMITS.maxTotalBytes) { skipped.push({ relativePath: name, reason: `the rules exceed ${RULES_LIMITS.maxTotalBytes} bytes in all` }); continue; }
    rulesFiles.push({ relativePath: name, content });
  }
  const text = toYaml({ customModes: [modeToPlain(mode, { source: 'project', rulesFiles })] });
  return { text, rulesDir, rulesFiles, skipped };
}
