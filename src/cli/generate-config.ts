// `roo-modes-server generate-config`: prints the complete default configuration. The values are
// the schema's defaults (src/config.ts reads them), so this output and the schema cannot drift.
import { defaultConfig } from '../config.js';
import { readCommand, type Command } from './options.js';

/**
 * Where the printed file finds its schema: the package inside the project's node_modules, named
 * relative to a config at the project root. Never this installation's absolute path, since the
 * file is meant to be committed and read on other machines.
 */
export const CONFIG_SCHEMA_REF = './node_modules/roo-modes-server/schemas/config.schema.json';

const COMMAND: Command<readonly []> = {
  name: 'generate-config',
  usage: ['> roo-modes.config.json'],
  about: `Prints a complete default configuration (every key with its default). Pass it with --config.
Its "$schema" is ${CONFIG_SCHEMA_REF}:
editors find the schema there when the package is a dependency of the project and the file
sits at the project root. It names no path of this machine, so the file can be committed.`,
  options: [],
};

export async function runGenerateConfig(argv: string[], io: { out(text: string): void; err(text: string): void; env: NodeJS.ProcessEnv }): Promise<number> {
  const args = readCommand(COMMAND, argv, io);
  if (typeof args === 'number') return args;
  io.out(`${JSON.stringify({ $schema: CONFIG_SCHEMA_REF, ...defaultConfig() }, null, 2)}\n`);
  return 0;
}
