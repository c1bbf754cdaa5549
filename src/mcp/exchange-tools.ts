// export_mode and import_mode: Roo's export files, both ways. The handlers look modes up, call the
// export/import modules and reload the catalogue after a write; they never touch files themselves.
import { modeNotFound } from '../modes/problems.js';
import type { Scope } from '../authoring/mode-writes.js';
import type { ToolCallContext, ToolResult, ToolTable } from './tool-types.js';
import { gateOf, type ModeFileDeps } from './authoring-tools.js';

/** What happened to one mode's rules folder, as it was done: a folder is only written when it gets files. */
function rulesOutcome(m: import('../authoring/import.js').ImportReport['modes'][number], dryRun: boolean): string {
  const files = (n: number): string => `${n} rules file${n === 1 ? '' : 's'}`;
  const old = `${m.removed.length} old entr${m.removed.length === 1 ? 'y' : 'ies'}`;
  const [write, replace, remove] = dryRun ? ['would write', 'would replace', 'would remove'] : ['wrote', 'replaced', 'removed'];
  if (m.written.length > 0) return m.removed.length > 0 ? `${replace} ${m.rules_dir} (${old}) with ${files(m.written.length)}` : `${write} ${files(m.written.length)} to ${m.rules_dir}`;
  return m.removed.length > 0 ? `${remove} ${m.rules_dir} (${old}): the import has no rules files` : 'no rules files in the import, so no rules folder';
}

/** A readable account of an import, for the text part of the result. */
export function importSummary(r: import('../authoring/import.js').ImportReport): string {
  const lines = [`${r.dry_run ? 'Would import' : 'Imported'} ${r.modes.length} mode${r.modes.length === 1 ? '' : 's'} into ${r.mode_file} (${r.scope}, ${r.format}).`];
  for (const m of r.modes) {
    lines.push(`- ${m.slug}: ${m.action}; ${rulesOutcome(m, r.dry_run)}`);
    for (const s of m.skipped) lines.push(`  skipped ${JSON.stringify(s.relative_path)}: ${s.reason}`);
  }
  if (r.backup) lines.push(`Backup of what was replaced: ${r.backup}`);
  return lines.join('\n');
}

async function exportMode(d: ModeFileDeps, args: Record<string, unknown>): Promise<ToolResult> {
  const slug = args.mode_slug as string;
  const cat = d.catalogue();
  const mode = cat.get(slug);
  if (!mode) throw modeNotFound(cat, slug);
  const rooExport = await import('../authoring/roo-export.js');
  const { projectRoot, homeDir } = d.scopeConfig();
  const out = await rooExport.exportMode(mode, { projectRoot, homeDir });
  const metadata: Record<string, unknown> = { slug: mode.slug, source: mode.source, yaml: out.text };
  if (out.rulesDir !== null) metadata.rules_dir = out.rulesDir;
  metadata.rules_files = out.rulesFiles.map((r) => ({ relative_path: r.relativePath, bytes: Buffer.byteLength(r.content) }));
  metadata.skipped = out.skipped.map((s) => ({ relative_path: s.relativePath, reason: s.reason }));
  return { text: out.text, metadata };
}

async function importMode(d: ModeFileDeps, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolResult> {
  const [{ parseImport, importModes }, { scopePaths }] = await Promise.all([import('../authoring/import.js'), import('../authoring/mode-writes.js')]);
  const parsed = parseImport(args.yaml as string);
  const paths = await scopePaths((args.scope as Scope | undefined) ?? 'project', d.scopeConfig());
  const report = await importModes(parsed, paths, args.dry_run === true, gateOf(d, args), ctx.signal);
  if (!report.dry_run) await d.reload();
  return { text: importSummary(report), metadata: { ...report, backup: report.backup ?? '' } };
}

export const EXCHANGE_TOOLS = { export_mode: exportMode, import_mode: importMode } satisfies ToolTable<ModeFileDeps>;
