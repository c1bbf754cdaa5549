// `roo-modes-server validate [FILE ...]`: checks mode files and prints file:line:column problems;
// exit code 1 when any were found. Reads files only; never writes or changes anything.
import { resolve } from 'node:path';
import { readModeLayer, resolveModeFiles } from '../modes/catalogue.js';
import { formatIssue, modeSources, SOURCE_OPTIONS, type CliIo, type ModeSources } from './modes.js';
import { readCommand, type Command, type Option } from './options.js';

const OPTIONS = [
  ...SOURCE_OPTIONS,
  { name: '--allow-empty', kind: 'switch', help: 'exit 0 when no mode file is found (for a project that has none); without it, finding none is an error' },
] as const satisfies readonly Option[];

const COMMAND: Command<typeof OPTIONS> = {
  name: 'validate',
  usage: ['[--project-root DIR] [--config-dir DIR] [--global-modes-file FILE] [--allow-empty] [FILE ...]'],
  about: `Checks mode files (.roomodes, .kilocodemodes, custom_modes.yaml, mode sets) by Roo Code's rules and
prints each problem as file:line:column: message. Without FILE it checks every source file that
exists (see the precedence table in docs/modes.md), Roo Code's own global file in an editor's storage
included when the config dir has none.
The project is --project-root, else $ROO_PROJECT_ROOT, else the nearest folder up from the
current one holding .roomodes, .roo/ or .git (named on stderr when it is not the current folder).
Exits 1 when a problem was found, and when no mode file was found at all (a CI step run in the
wrong folder must not pass having checked nothing) unless --allow-empty; 0 otherwise.`,
  options: OPTIONS,
  operands: true,
};

export async function runValidate(argv: string[], io: CliIo): Promise<number> {
  const args = readCommand(COMMAND, argv, io);
  if (typeof args === 'number') return args;
  let targets: { file: string; jsonFallback: boolean; explicit: boolean }[];
  let sources: ModeSources | null = null;
  if (args.operands.length > 0) {
    targets = args.operands.map((f) => ({ file: resolve(f), jsonFallback: true, explicit: true }));
  } else {
    sources = modeSources(args, io);
    const found = await resolveModeFiles({ ...sources, env: io.env });
    targets = found.layers.map((l) => ({ file: l.file, jsonFallback: l.jsonFallback, explicit: false }));
    for (const note of found.notices) io.out(`${formatIssue(note)} (note)\n`);
  }
  let problems = 0;
  let checked = 0;
  for (const t of targets) {
    const layer = await readModeLayer(t.file, 'project', t.jsonFallback);
    if (!layer.read && layer.issues.length === 0) {
      if (t.explicit) {
        io.out(`${t.file}:1: the file does not exist\n`);
        problems++;
      }
      continue;
    }
    checked++;
    for (const issue of layer.issues) io.out(`${formatIssue(issue)}\n`);
    for (const note of layer.notices) io.out(`${formatIssue(note)} (note)\n`);
    for (const warning of layer.warnings) io.out(`${formatIssue(warning)} (warning)\n`);
    problems += layer.issues.length;
    if (layer.issues.length === 0) io.out(`${t.file}: ok, ${layer.modes.length} mode${layer.modes.length === 1 ? '' : 's'}\n`);
  }
  if (targets.length === 0 || (checked === 0 && problems === 0)) {
    if (args.allowEmpty) { io.out('No mode files found.\n'); return 0; }
    const where = sources === null ? '' : ` for the project ${sources.projectRoot} (.roomodes, .kilocodemodes or a mode set) nor in the global config dir ${sources.configDir}`;
    io.err(`roo-modes-server validate: no mode file found${where}; run it in the project, name it with --project-root DIR, or pass --allow-empty if having none is fine\n`);
    return 1;
  }
  io.err(`${problems} problem${problems === 1 ? '' : 's'} in ${checked} file${checked === 1 ? '' : 's'} checked.\n`);
  return problems > 0 ? 1 : 0;
}
