// Reading a subcommand's flags: `--name value`, `--name=value` and switches, and `~/` in path
// values. Shared by the subcommands; it knows no command's flags and never prints.
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface Flags {
  /** Each switch given (→ true) and each valued flag's last value. */
  own: Map<string, string | true>;
  /** Every value of each valued flag, in order (for repeatable ones such as --mode). */
  all: Map<string, string[]>;
  /** What is neither: positional words and unknown options, for the caller to judge. */
  rest: string[];
}

/** Takes `switches` and `valued` flags out of argv; an error sentence when a value is missing. */
export function readFlags(argv: readonly string[], switches: readonly string[], valued: readonly string[]): Flags | string {
  const out: Flags = { own: new Map(), all: new Map(), rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (valued.includes(name)) {
      const value = name === arg ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined || value === '') return `${name} needs a value`;
      out.own.set(name, value);
      out.all.set(name, [...(out.all.get(name) ?? []), value]);
    } else if (switches.includes(arg)) out.own.set(arg, true);
    else out.rest.push(arg);
  }
  return out;
}

/** `~` and `~/…` against the environment's HOME (else the OS's idea of it). */
export function expandHome(path: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? homedir();
  return path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
}
