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
import { parseModeArgs, type CliIo, type ModeArgs } from './modes.js';
import { readFlags } from './flags.js';

const EXPORT_USAGE = `Usage: roo-modes-server export-mode SLUG [--out FILE] [--project-root DIR] [--config-dir DIR] [--global-modes-file FILE]

Prints one mode (custom or built-in) in Roo Code's export format: YAML {customModes: [mode]} with
the top-level files of its rules-<slug>/ folder as rulesFiles (trimmed, empty ones left out).

  --out FILE    write the export to FILE (atomically) instead of stdout
`;

const IMPORT_USAGE = `Usage: roo-modes-server import-mode FILE [--global] [--dry-run] [--json] [--project-root DIR] [--config-dir DIR] [--global-modes-file FILE]

Imports Roo Code's export format (or one mode, or a marketplace mode item): every mode is checked
first and nothing is written if one is invalid; each is upserted into the project's .roomodes (or
the global mode file with --global) and its rules-<slug>/ folder is replaced by the imported rules
files, after a backup of everything replaced. Unsafe rules paths are skipped; too many or too
large files refuse the import.

  --global      import into the global mode file and ~/.roo instead of the project
  --dry-run     report what would change; write nothing
  --json        print the report as JSON
`;

function parse(cmd: string, argv: string[], io: CliIo, flags: string[], valued: string[]): { args: ModeArgs; own: Map<string, string | true> } | number {
  // This command's own flags first; the shared ones are left for parseModeArgs.
  const taken = readFlags(argv, flags, valued);
  const args = typeof taken === 'string' ? taken : parseModeArgs(taken.rest, io.env, false);
  if (typeof args === 'string') {
    io.err(`${cmd}: ${args} (see roo-modes-server ${cmd} --help)\n`);
    return 2;
  }
  return { args, own: (taken as { own: Map<string, string | true> }).own };
}

const homeOf = (io: CliIo): string => io.env.HOME || homedir();

export async function runExportMode(argv: string[], io: CliIo): Promise<number> {
  const p = parse('export-mode', argv, io, [], ['--out']);
  if (typeof p === 'number') return p;
  if (p.args.help) { io.out(EXPORT_USAGE); return 0; }
  if (p.args.rest.length !== 1) {
    io.err(`export-mode: expected one mode slug, got ${p.args.rest.length} (see roo-modes-server export-mode --help)\n`);
    return 2;
  }
  const slug = p.args.rest[0]!;
  const home = homeOf(io);
  const cat = await loadCatalogue({ projectRoot: p.args.projectRoot, configDir: p.args.configDir, globalModesFile: p.args.globalModesFile, homeDir: home });
  const mode = cat.get(slug);
  if (!mode) {
    io.err(`export-mode: no mode "${slug}"; available: ${cat.slugs().join(', ')}\n`);
    return 1;
  }
  const out = await exportMode(mode, { projectRoot: p.args.projectRoot, homeDir: home });
  for (const s of out.skipped) io.err(`export-mode: left out ${s.relativePath}: ${s.reason}\n`);
  const file = p.own.get('--out');
  if (typeof file === 'string') {
    await writeFileAtomic(resolve(file), out.text);
    io.err(`export-mode: wrote ${resolve(file)} (${out.rulesFiles.length} rules file${out.rulesFiles.length === 1 ? '' : 's'})\n`);
  } else io.out(out.text);
  return 0;
}

export async function runImportMode(argv: string[], io: CliIo): Promise<number> {
  const p = parse('import-mode', argv, io, ['--global', '--dry-run', '--json'], []);
  if (typeof p === 'number') return p;
  if (p.args.help) { io.out(IMPORT_USAGE); return 0; }
  if (p.args.rest.length !== 1) {
    io.err(`import-mode: expected one FILE, got ${p.args.rest.length} (see roo-modes-server import-mode --help)\n`);
    return 2;
  }
  const file = resolve(p.args.rest[0]!);
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size > MAX_MODE_FILE_BYTES) throw new Error(`${info.size} bytes; import files over ${MAX_MODE_FILE_BYTES} bytes are refused unread`);
  } catch (err) {
    io.err(`import-mode: ${file}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  try {
    const parsed = parseImport(await readFile(file, 'utf8'));
    const paths = await scopePaths(p.own.has('--global') ? 'global' : 'project', {
      projectRoot: p.args.projectRoot, configDir: p.args.configDir, globalModesFile: p.args.globalModesFile, homeDir: homeOf(io),
    });
    const report = await importModes(parsed, paths, p.own.has('--dry-run'));
    io.out(p.own.has('--json') ? `${JSON.stringify(report, null, 2)}\n` : `${importSummary(report)}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    const data = err.data;
    const detail = typeof data === 'object' && data !== null && 'message' in data && data.message !== err.message ? ` (${String(data.message)})` : '';
    io.err(`import-mode: ${err.message}${detail}\n`);
    return 1;
  }
}
