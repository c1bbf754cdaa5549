// `export-mode` and `import-mode`: Roo's export files from the shell, through the same modules as
// the export_mode and import_mode tools. Writes only through io and the import module.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { stat, readFile } from 'node:fs/promises';
import { loadCatalogue, MAX_MODE_FILE_BYTES } from '../modes/catalogue.js';
import { exportMode } from '../authoring/roo-export.js';
import { importModes, parseImport } from '../authoring/import.js';
import { scopePaths } from '../authoring/mode-writes.js';
import { importSummary } from '../mcp/exchange-tools.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { RpcError } from '../rpc/errors.js';
import { modeSources, SOURCE_OPTIONS, type CliIo } from './modes.js';
import { cliMessage, readCommand, type Command, type Option } from './options.js';

const EXPORT_OPTIONS = [
  { name: '--out', kind: 'path', value: 'FILE', help: 'write the export to FILE (atomically) instead of stdout' },
  ...SOURCE_OPTIONS,
] as const satisfies readonly Option[];

const EXPORT_COMMAND: Command<typeof EXPORT_OPTIONS> = {
  name: 'export-mode',
  usage: ['SLUG [--out FILE] [--project-root DIR] [--config-dir DIR] [--global-modes-file FILE]'],
  about: `Prints one mode (custom or built-in) in Roo Code's export format: YAML {customModes: [mode]} with
the top-level files of its rules-<slug>/ folder as rulesFiles (trimmed, empty ones left out).`,
  options: EXPORT_OPTIONS,
  operands: true,
  check: (v) => (v.operands.length === 1 ? null : `expected one mode slug, got ${v.operands.length}`),
};

const IMPORT_OPTIONS = [
  { name: '--global', kind: 'switch', help: 'import into the global mode file and ~/.roo instead of the project' },
  { name: '--dry-run', kind: 'switch', help: 'report what would change; write nothing' },
  { name: '--json', kind: 'switch', help: 'print the report as JSON' },
  ...SOURCE_OPTIONS,
] as const satisfies readonly Option[];

const IMPORT_COMMAND: Command<typeof IMPORT_OPTIONS> = {
  name: 'import-mode',
  usage: ['FILE [--global] [--dry-run] [--json] [--project-root DIR] [--config-dir DIR] [--global-modes-file FILE]'],
  about: `Imports Roo Code's export format (or one mode, or a marketplace mode item): every mode is checked
first and nothing is written if one is invalid; each is upserted into the project's .roomodes (or
the global mode file with --global) and its rules-<slug>/ folder is replaced by the imported rules
files, after a backup of everything replaced. Unsafe rules paths are skipped; too many or too
large files refuse the import.`,
  options: IMPORT_OPTIONS,
  operands: true,
  check: (v) => (v.operands.length === 1 ? null : `expected one FILE, got ${v.operands.length}`),
};

const homeOf = (io: CliIo): string => io.env.HOME || homedir();

export async function runExportMode(argv: string[], io: CliIo): Promise<number> {
  const args = readCommand(EXPORT_COMMAND, argv, io);
  if (typeof args === 'number') return args;
  const slug = args.operands[0]!;
  const home = homeOf(io);
  const sources = modeSources(args, io);
  const cat = await loadCatalogue({ ...sources, homeDir: home });
  const mode = cat.get(slug);
  if (!mode) {
    io.err(`${cliMessage('export-mode', `no mode "${slug}"; available: ${cat.slugs().join(', ')}`)}\n`);
    return 1;
  }
  const out = await exportMode(mode, { projectRoot: sources.projectRoot, homeDir: home });
  for (const s of out.skipped) io.err(`${cliMessage('export-mode', `left out ${s.relativePath}: ${s.reason}`)}\n`);
  const file = args.out;
  if (file !== undefined) {
    await writeFileAtomic(resolve(file), out.text);
    io.err(`roo-modes-server export-mode: wrote ${resolve(file)} (${out.rulesFiles.length} rules file${out.rulesFiles.length === 1 ? '' : 's'})\n`);
  } else io.out(out.text);
  return 0;
}

export async function runImportMode(argv: string[], io: CliIo): Promise<number> {
  const args = readCommand(IMPORT_COMMAND, argv, io);
  if (typeof args === 'number') return args;
  const file = resolve(args.operands[0]!);
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size > MAX_MODE_FILE_BYTES) throw new Error(`${info.size} bytes; import files over ${MAX_MODE_FILE_BYTES} bytes are refused unread`);
  } catch (err) {
    io.err(`${cliMessage('import-mode', `${file}: ${err instanceof Error ? err.message : String(err)}`)}\n`);
    return 1;
  }
  try {
    const parsed = parseImport(await readFile(file, 'utf8'));
    const paths = await scopePaths(args.global ? 'global' : 'project', { ...modeSources(args, io), homeDir: homeOf(io) });
    const report = await importModes(parsed, paths, args.dryRun);
    io.out(args.json ? `${JSON.stringify(report, null, 2)}\n` : `${importSummary(report)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    const data = err.data;
    // The detail only when it adds something: most refusals already say it in the message.
    const more = typeof data === 'object' && data !== null && 'message' in data ? String(data.message) : '';
    const detail = more !== '' && !err.message.includes(more) ? ` (${more})` : '';
    io.err(`${cliMessage('import-mode', `${err.message}${detail}`)}\n`);
    return 1;
  }
}
