// `roo-modes-server modes`: lists the modes in force (table or --json) with the problems found.
// Writes only through the io it is given; never touches process.stdout or exits the process.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { TOOL_GROUP_NAMES, type GroupEntry, type Mode } from '../modes/types.js';
import { loadCatalogue, type Catalogue } from '../modes/catalogue.js';
import type { MatrixPlace } from '../app/matrix.js';
import { formatIssue } from '../modes/problems.js';
import { describeToolGroups } from '../modes/describe.js';
import { expandHome } from './flags.js';

export interface CliIo { out(text: string): void; err(text: string): void; env: NodeJS.ProcessEnv }

export interface ModeArgs {
  help: boolean;
  json: boolean;
  /** `--matrix`: the modes × tool groups grid. */
  matrix: boolean;
  /** `--html FILE`: the modes view written as a page that needs no host (absolute path). */
  html: string | null;
  projectRoot: string;
  configDir: string;
  globalModesFile: string | null;
  /** Positional arguments (files, for validate). */
  rest: string[];
}

const VALUE_FLAGS = ['--project-root', '--config-dir', '--global-modes-file'] as const;

/** Parses the flags both subcommands share; returns an error sentence on bad usage. */
export function parseModeArgs(argv: readonly string[], env: NodeJS.ProcessEnv, allowJson: boolean): ModeArgs | string {
  const values = new Map<string, string>();
  const rest: string[] = [];
  let help = false;
  let json = false;
  let matrix = false;
  let html: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--json' && allowJson) json = true;
    else if (arg === '--matrix' && allowJson) matrix = true;
    else if (flag === '--html' && allowJson) {
      const value = flag === arg ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined || value === '') return '--html needs a file';
      html = resolve(expandHome(value, env));
    }
    else if ((VALUE_FLAGS as readonly string[]).includes(flag)) {
      const value = flag === arg ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined || value === '') return `${flag} needs a value`;
      values.set(flag, value);
    } else if (arg.startsWith('-') && arg !== '-') return `unknown option: ${arg}`;
    else rest.push(arg);
  }
  const pick = (flag: string, envName: string, fallback: string): string =>
    resolve(expandHome(values.get(flag) ?? (env[envName] || fallback), env));
  const globalFile = values.get('--global-modes-file');
  return {
    help, json, matrix, html, rest,
    projectRoot: pick('--project-root', 'ROO_PROJECT_ROOT', process.cwd()),
    configDir: pick('--config-dir', 'ROO_CONFIG_DIR', '~/.roo-code'),
    globalModesFile: globalFile === undefined ? null : resolve(expandHome(globalFile, env)),
  };
}

/** `file:line:column: message`, the form editors and CI annotate (one formatter for the CLI and the log). */
export { formatIssue };

const groupLabel = (g: GroupEntry): string =>
  typeof g === 'string' ? g : g[1].fileRegex !== undefined ? `${g[0]}(${g[1].fileRegex})` : g[0];

const USAGE = `Usage: roo-modes-server modes [--json | --matrix | --html FILE] [--project-root DIR] [--config-dir DIR] [--global-modes-file FILE]

Lists the modes in force and the file each came from: project (.roomodes or the active mode
set, then .kilocodemodes), global (modes.yaml or custom_modes.yaml in the config dir, else Roo
Code's own in an editor's storage; then Kilo Code's global files) and built-in, with any problems
found in those files.

  --json                 print {"modes": [...], "errors": [...], "warnings": [...], "global_modes_file": ...} instead of a table
  --matrix               print the modes × tool groups grid, with each file pattern
  --html FILE            write the modes view (the MCP Apps page list_modes shows in hosts that
                         render it) to FILE, with the modes inside: a page any browser opens
  --project-root DIR     the project (default: $ROO_PROJECT_ROOT or the current directory)
  --config-dir DIR       the global config dir (default: $ROO_CONFIG_DIR or ~/.roo-code)
  --global-modes-file F  use this global modes file instead of the config dir's
`;

/** One row per mode, one column per group: ✓, · (not allowed), or the edit group's file pattern. */
function matrixRows(modes: readonly Mode[]): string[][] {
  const head = ['MODE', ...TOOL_GROUP_NAMES.map((g) => g.toUpperCase())];
  return [head, ...modes.map((m) => [m.slug, ...describeToolGroups(m).map((g) => {
    if (!g.enabled) return '·';
    if (g.fileRegex !== undefined) return g.fileRegex;
    return g.mcpTools !== undefined ? g.mcpTools.join(',') : '✓';
  })])];
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => [...r[c]!].length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell + ' '.repeat(widths[c]! - [...cell].length))).join('  ').trimEnd()).join('\n');
}

export async function runModes(argv: string[], io: CliIo): Promise<number> {
  const args = parseModeArgs(argv, io.env, true);
  if (typeof args === 'string') {
    io.err(`modes: ${args} (see roo-modes-server modes --help)\n`);
    return 2;
  }
  if (args.help) {
    io.out(USAGE);
    return 0;
  }
  if (args.rest.length > 0) {
    io.err(`modes: unexpected argument ${JSON.stringify(args.rest[0])} (see roo-modes-server modes --help)\n`);
    return 2;
  }
  if ([args.json, args.matrix, args.html !== null].filter(Boolean).length > 1) {
    io.err('modes: --json, --matrix and --html exclude each other (see roo-modes-server modes --help)\n');
    return 2;
  }
  const cat = await loadCatalogue({
    projectRoot: args.projectRoot, configDir: args.configDir, globalModesFile: args.globalModesFile, homeDir: io.env.HOME || homedir(), env: io.env,
  });
  const globalLine = `Global modes file: ${cat.globalFile ?? 'none found'}\n`;
  if (args.html !== null) return writeHtml(args.html, cat, { projectRoot: args.projectRoot, homeDir: io.env.HOME || homedir() }, io);
  if (args.json) {
    const modes = cat.modes.map((m) => ({
      slug: m.slug, name: m.name, source: m.source, ...(m.file !== undefined ? { file: m.file } : {}),
      roleDefinition: m.roleDefinition,
      ...(m.whenToUse !== undefined ? { whenToUse: m.whenToUse } : {}),
      ...(m.description !== undefined ? { description: m.description } : {}),
      ...(m.customInstructions !== undefined ? { customInstructions: m.customInstructions } : {}),
      groups: m.groups,
      ...(m.allowedMcpServers !== undefined ? { allowedMcpServers: m.allowedMcpServers } : {}),
      ...(m.iconName !== undefined ? { iconName: m.iconName } : {}),
    }));
    const errors = cat.issues.map((i) => ({
      file: i.file, line: i.line ?? 1, ...(i.column !== undefined ? { column: i.column } : {}),
      ...(i.slug !== undefined ? { slug: i.slug } : {}), message: i.message,
    }));
    const warnings = cat.warnings.map((w) => ({ file: w.file, line: w.line ?? 1, message: w.message }));
    io.out(`${JSON.stringify({ modes, errors, warnings, global_modes_file: cat.globalFile }, null, 2)}\n`);
    return 0;
  }
  const rows = args.matrix ? matrixRows(cat.modes) : [['SLUG', 'NAME', 'SOURCE', 'GROUPS', 'FILE'], ...cat.modes.map((m) => [
    m.slug, m.name, m.source, m.groups.map(groupLabel).join(', ') || '(none)', m.file ?? '(built-in)',
  ])];
  io.out(`${table(rows)}\n\n${globalLine}`);
  if (cat.issues.length > 0) {
    io.err(`\n${cat.issues.length} problem${cat.issues.length === 1 ? '' : 's'} in the mode files:\n${cat.issues.map(formatIssue).join('\n')}\n`);
  }
  return 0;
}

/** `--html FILE`: the built view page with the catalogue inside; the problems go to stderr as well. */
async function writeHtml(file: string, cat: Catalogue, place: MatrixPlace, io: CliIo): Promise<number> {
  const [{ buildViewData }, { readViewPage, staticPage }, { writeFileAtomic }] = await Promise.all([
    import('../app/matrix.js'), import('../app/page.js'), import('../files/atomic-write.js'),
  ]);
  const data = buildViewData(cat, place);
  try {
    await writeFileAtomic(file, staticPage(await readViewPage(), data));
  } catch (err) {
    io.err(`modes: could not write ${file}: ${(err as Error).message}\n`);
    return 1;
  }
  io.out(`Wrote the modes view of ${data.modes.length} mode${data.modes.length === 1 ? '' : 's'} to ${file}\n`);
  if (cat.issues.length > 0) io.err(`${cat.issues.length} problem${cat.issues.length === 1 ? '' : 's'} in the mode files (shown in the page):\n${cat.issues.map(formatIssue).join('\n')}\n`);
  return 0;
}
