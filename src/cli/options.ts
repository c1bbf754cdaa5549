// The CLI's one reader of argv: each subcommand declares its options once, as data, and that table
// drives the parsing, every check (with "did you mean"), and the options part of its --help.
// It knows no subcommand's options and never prints, exits or reads a file.
//
// How it reads: `--name value`, `--name=value`, switches, and a one-letter alias (`-h`); a word that
// is no option is an operand (only where the command takes operands), and so is everything after
// `--`. A separate value may not start with `--` (`--out --force` is a missing value, not a folder
// named "--force"); `--name=--x` gives one. A repeated option keeps its last value unless it is
// repeatable. Help skips the checks that need a complete command line (required options, pairs).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { likelyMeant } from '../config-keys.js';

/** Bad usage: the message quotes the offending word; the command prints it and exits 2. */
export class UsageError extends Error {}

type Flag = `--${string}`;

interface Common {
  readonly name: Flag;
  /** A one-letter alias such as `-h`. */
  readonly alias?: `-${string}`;
  /** The --help description: plain words, wrapped by the generator (a `\n` starts a new line). */
  readonly help: string;
  readonly required?: boolean;
  /** Meaningful only beside another option (given at all, or holding one of `values`). */
  readonly goesWith?: { readonly option: Flag; readonly values?: readonly string[] };
  /** The config key this option fills (serve's options; loadConfig merges them over the rest). */
  readonly sets?: readonly string[];
}

export interface SwitchOption extends Common { readonly kind: 'switch' }

interface Valued extends Common {
  /** How the value is shown in --help, e.g. DIR. */
  readonly value: string;
}

export interface TextOption extends Valued {
  /** string: as given; path: a leading `~` is the home folder ($HOME), nothing else changes. */
  readonly kind: 'string' | 'path';
  /** Every value is kept, in order (otherwise the last one wins). */
  readonly repeatable?: boolean;
  /** The value may be left out: bare (last, or before another option) it reads as a switch. */
  readonly optionalValue?: boolean;
  readonly default?: string;
  /** Turns the text into what the command uses, throwing UsageError (or the caller's error) when it cannot. */
  readonly parse?: (text: string) => unknown;
}

export interface NumberOption extends Valued {
  readonly kind: 'number';
  /** A whole decimal number from `min` to `max`. */
  readonly min: number;
  readonly max?: number;
  /** What the number is, for the error: "a port number (0-65535)". */
  readonly what: string;
  readonly default?: number;
}

export interface EnumOption extends Valued {
  readonly kind: 'enum';
  readonly choices: readonly string[];
  readonly default?: string;
}

export type Option = SwitchOption | TextOption | NumberOption | EnumOption;

export interface Command<T extends readonly Option[]> {
  /** As typed after `roo-modes-server` ('' for the default command). */
  readonly name: string;
  /** Synopsis lines, each after `roo-modes-server NAME `. */
  readonly usage: readonly string[];
  /** Laid-out text between the synopsis and the options. */
  readonly about?: string;
  readonly options: T;
  /** Whether words that are no option are taken (the command judges them); if not, each is refused. */
  readonly operands?: boolean;
  /** Laid-out text after the options. */
  readonly notes?: string;
  /** The checks across options that a table cannot say: an error sentence, or null. */
  readonly check?: (values: Values<T>) => string | null;
}

type Camel<S extends string> = S extends `${infer A}-${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;
type KeyOf<N extends string> = N extends `--${infer R}` ? Camel<R> : never;
type One<O, T> = O extends { readonly default: unknown } ? T : T | undefined;
type Text<O, T> = O extends { readonly repeatable: true } ? T[] : O extends { readonly optionalValue: true } ? T | true | undefined : One<O, T>;
type ValueOf<O> =
  O extends { readonly kind: 'switch' } ? boolean
  : O extends { readonly kind: 'number' } ? One<O, number>
  : O extends { readonly kind: 'enum'; readonly choices: readonly (infer C)[] } ? One<O, C>
  : Text<O, O extends { readonly parse: (text: string) => infer P } ? P : string>;

/** What a table reads into: one camelCase key per option (`--dry-run` → dryRun), plus help and the operands. */
export type Values<T extends readonly Option[]> =
  { -readonly [O in T[number] as KeyOf<O['name']>]: ValueOf<O> } & { help: boolean; operands: string[] };

/** Every command's `-h, --help`. */
const HELP: SwitchOption = { name: '--help', alias: '-h', kind: 'switch', help: 'this text' };

/** The key of an option's value: `--dry-run` → dryRun. */
export const keyOf = (name: string): string => name.slice(2).replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** "a", "a or b", "a, b or c". */
export function orList(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** `; did you mean "x"?` naming the known word a mistyped one most likely meant, or nothing. */
export function meant(word: string, known: readonly string[]): string {
  const best = likelyMeant(word, known);
  return best === null ? '' : `; did you mean ${JSON.stringify(best)}?`;
}

/** `~` and `~/…` against the environment's HOME (else the OS's idea of it); other paths as they are. */
export function expandHome(path: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME || homedir();
  return path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

function convert(option: Exclude<Option, SwitchOption>, text: string, env: NodeJS.ProcessEnv): unknown {
  switch (option.kind) {
    case 'number': {
      const n = Number(text);
      if (!/^\d+$/.test(text) || n < option.min || (option.max !== undefined && n > option.max)) {
        throw new UsageError(`${option.name} must be ${option.what}, got ${JSON.stringify(text)}`);
      }
      return n;
    }
    case 'enum':
      if (!option.choices.includes(text)) {
        throw new UsageError(`${option.name} ${JSON.stringify(text)}: use ${option.choices.length > 2 ? 'one of ' : ''}${orList(option.choices)}${meant(text, option.choices)}`);
      }
      return text;
    case 'path': {
      const expanded = expandHome(text, env);
      return option.parse ? option.parse(expanded) : expanded;
    }
    case 'string':
      return option.parse ? option.parse(text) : text;
  }
}

/** Reads argv by the command's table: its values, or a UsageError naming what is wrong. */
export function parseArgs<T extends readonly Option[]>(cmd: Command<T>, argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Values<T> {
  const table: readonly Option[] = [...cmd.options, HELP];
  const byName = new Map<string, Option>();
  for (const o of table) { byName.set(o.name, o); if (o.alias) byName.set(o.alias, o); }
  const out: Record<string, unknown> = { operands: [] };
  for (const o of table) {
    out[keyOf(o.name)] = o.kind === 'switch' ? false : 'repeatable' in o && o.repeatable ? [] : 'default' in o ? o.default : undefined;
  }
  const given = new Set<string>();
  const operand = (word: string): void => {
    if (!cmd.operands) throw new UsageError(`unexpected argument ${JSON.stringify(word)}`);
    (out.operands as string[]).push(word);
  };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') { argv.slice(i + 1).forEach(operand); break; }
    if (!token.startsWith('-') || token === '-') { operand(token); continue; }
    const eq = token.startsWith('--') ? token.indexOf('=') : -1;
    const name = eq > 0 ? token.slice(0, eq) : token;
    const option = byName.get(name);
    if (option === undefined) throw new UsageError(`unknown option ${JSON.stringify(token)}${meant(name, table.map((o) => o.name))}`);
    given.add(option.name);
    const key = keyOf(option.name);
    if (option.kind === 'switch') {
      if (eq > 0) throw new UsageError(`${option.name} takes no value`);
      out[key] = true;
      continue;
    }
    const next = argv[i + 1];
    if (eq < 0 && option.kind === 'string' && option.optionalValue && (next === undefined || next.startsWith('-'))) { out[key] = true; continue; }
    const text = eq > 0 ? token.slice(eq + 1) : next?.startsWith('--') ? undefined : argv[++i];
    if (text === undefined || text === '') throw new UsageError(`${option.name} needs a value`);
    const value = convert(option, text, env);
    if ('repeatable' in option && option.repeatable) (out[key] as unknown[]).push(value);
    else out[key] = value;
  }
  const values = out as Values<T>;
  if (out.help === true) return values;
  for (const o of table) {
    if (o.required && !given.has(o.name)) throw new UsageError(`${o.name} is required`);
    const pair = o.goesWith;
    if (pair === undefined || !given.has(o.name)) continue;
    const other = out[keyOf(pair.option)];
    const fits = pair.values === undefined ? given.has(pair.option) : typeof other === 'string' && pair.values.includes(other);
    if (!fits) throw new UsageError(`${o.name} goes with ${pair.option}${pair.values ? ` ${orList(pair.values)}` : ''}`);
  }
  const problem = cmd.check?.(values) ?? null;
  if (problem !== null) throw new UsageError(problem);
  return values;
}

/** How a command is typed: `roo-modes-server NAME`, or the program alone for the default command. */
const typed = (command: string): string => (command === '' ? 'roo-modes-server' : `roo-modes-server ${command}`);

/**
 * The one prefix of every CLI message on stderr that is not a usage error: `roo-modes-server NAME: …`
 * (just `roo-modes-server: …` for the server itself), so a line in a CI log says which command spoke.
 */
export function cliMessage(command: string, message: string): string {
  return `${typed(command)}: ${message}`;
}

/** The one form of a usage error, for every subcommand: `roo-modes-server NAME: what (see … --help)` (no newline). */
export function usageMessage(command: string, message: string): string {
  return `${typed(command)}: ${message} (see ${typed(command)} --help)`;
}

interface Io { out(text: string): void; err(text: string): void; env: NodeJS.ProcessEnv }

/** parseArgs for a subcommand's handler: the values, or the exit code once help (0) or a usage error (2) is printed. */
export function readCommand<T extends readonly Option[]>(cmd: Command<T>, argv: readonly string[], io: Io): Values<T> | number {
  let values: Values<T>;
  try { values = parseArgs(cmd, argv, io.env); } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`${usageMessage(cmd.name, err.message)}\n`);
    return 2;
  }
  if (!values.help) return values;
  io.out(helpText(cmd));
  return 0;
}

const WIDTH = 100;

/** Words filled into lines of at most `width` characters (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ').filter((w) => w !== '')) {
      if (line !== '' && line.length + 1 + word.length > width) { lines.push(line); line = word; } else line = line === '' ? word : `${line} ${word}`;
    }
    lines.push(line);
  }
  return lines;
}

/** The options block of --help: each option's forms and value, then its description (and whether it is required, or its default). */
export function optionLines<T extends readonly Option[]>(cmd: Command<T>): string {
  const options: readonly Option[] = [...cmd.options, HELP];
  const heads = options.map((o) => `  ${o.alias ? `${o.alias}, ` : ''}${o.name}${'value' in o ? ` ${o.value}` : ''}`);
  const column = Math.max(...heads.map((h) => h.length)) + 2;
  return options.map((o, i) => {
    const help = `${o.help}${o.required ? ' (required)' : ''}${'default' in o && o.default !== undefined ? ` (default ${o.default})` : ''}`;
    const [first = '', ...rest] = wrap(help, WIDTH - column);
    return [heads[i]!.padEnd(column) + first, ...rest.map((l) => ' '.repeat(column) + l)].join('\n');
  }).join('\n');
}

/** A subcommand's whole --help text, from its declaration. */
export function helpText<T extends readonly Option[]>(cmd: Command<T>): string {
  const usage = cmd.usage.map((u, i) => `${i === 0 ? 'Usage: ' : '       '}${typed(cmd.name)} ${u}`).join('\n');
  const parts = [usage, cmd.about, optionLines(cmd), cmd.notes].filter((p): p is string => p !== undefined);
  return `${parts.map((p) => p.replace(/\n+$/, '')).join('\n\n')}\n`;
}
