// `roo-modes-server generate-config`: prints the complete default configuration. The values are
// the schema's defaults (src/config.ts reads them), so this output and the schema cannot drift.
import { fileURLToPath } from 'node:url';
import { CONFIG_SCHEMA_URL, defaultConfig } from '../config.js';

export async function runGenerateConfig(argv: string[], io: { out(text: string): void; err(text: string): void }): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out('Usage: roo-modes-server generate-config > roo-modes.config.json\nPrints a complete default configuration (every key with its default). Pass it with --config.\n');
    return 0;
  }
  if (argv.length > 0) { io.err(`generate-config: unexpected argument ${JSON.stringify(argv[0])}\n`); return 2; }
  io.out(`${JSON.stringify({ $schema: fileURLToPath(CONFIG_SCHEMA_URL), ...defaultConfig() }, null, 2)}\n`);
  return 0;
}
