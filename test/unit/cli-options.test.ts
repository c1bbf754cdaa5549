// The CLI's option engine (src/cli/options.ts): one declared table read into typed values, every
// refusal quoting the offending word (with "did you mean"), and --help generated from the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { helpText, parseArgs, readCommand, UsageError, type Command, type Option } from '../../src/cli/options.js';

const OPTIONS = [
  { name: '--project-root', kind: 'path', value: 'DIR', help: 'the project' },
  { name: '--dry-run', kind: 'switch', help: 'write nothing' },
  { name: '--mode', kind: 'string', value: 'SLUG', repeatable: true, help: 'one mode; repeatable' },
  { name: '--timeout', kind: 'number', value: 'MS', min: 1, what: 'a positive number of milliseconds', default: 30000, help: 'limit for the whole run' },
  { name: '--to', kind: 'enum', value: 'AGENT', choices: ['claude-code', 'cursor', 'kilo'], required: true, help: 'the target' },
  { name: '--hook', kind: 'enum', value: 'command|http', choices: ['command', 'http'], default: 'command', goesWith: { option: '--to', values: ['claude-code'] }, help: 'how the hook runs' },
  { name: '--url', kind: 'string', value: 'URL', goesWith: { option: '--hook', values: ['http'] }, help: 'the endpoint' },
  { name: '--plugin', kind: 'switch', help: 'also the plugin' },
  { name: '--plugin-url', kind: 'string', value: 'URL', goesWith: { option: '--plugin' }, help: 'the plugin asks this' },
  { name: '--pair', kind: 'string', value: 'K=V', parse: (t: string): [string, string] => {
    const at = t.indexOf('=');
    if (at <= 0) throw new UsageError(`--pair expects K=V, got ${JSON.stringify(t)}`);
    return [t.slice(0, at), t.slice(at + 1)];
  }, help: 'a pair' },
  { name: '--json', kind: 'string', value: "['{...}']", optionalValue: true, help: 'an object, or alone: JSON lines' },
] as const satisfies readonly Option[];

const CMD: Command<typeof OPTIONS> = { name: 'try', usage: ['--to AGENT [options]'], about: 'Tries things.', options: OPTIONS };
const WITH_OPERANDS: Command<typeof OPTIONS> = { ...CMD, operands: true };
const read = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseArgs(CMD, argv, env);

/** The UsageError message argv gets. */
function refusal(argv: string[], cmd: Command<typeof OPTIONS> = CMD): string {
  try { parseArgs(cmd, argv, {}); } catch (err) {
    assert.ok(err instanceof UsageError, String(err));
    return err.message;
  }
  assert.fail(`${JSON.stringify(argv)} was accepted`);
}

test('reads --name value, --name=value (keeping any later "="), switches and the defaults into camelCase keys', () => {
  const v = read(['--to', 'kilo', '--project-root=/a=b', '--dry-run', '--pair', 'k=v=w']);
  const { to, projectRoot, dryRun, timeout, hook, pair }: { to: 'claude-code' | 'cursor' | 'kilo' | undefined; projectRoot: string | undefined; dryRun: boolean; timeout: number; hook: string; pair: [string, string] | undefined } = v;
  assert.deepEqual({ to, projectRoot, dryRun, timeout, hook, pair }, { to: 'kilo', projectRoot: '/a=b', dryRun: true, timeout: 30000, hook: 'command', pair: ['k', 'v=w'] });
  assert.equal(v.plugin, false);
  assert.equal(v.url, undefined);
  assert.deepEqual(v.mode, []);
  assert.deepEqual(v.operands, []);
  assert.equal(v.help, false);
});

test('the last value of an option wins; a repeatable one keeps every value in order', () => {
  const v = read(['--to', 'kilo', '--to', 'cursor', '--mode', 'a', '--mode=b', '--timeout', '5', '--timeout', '7']);
  assert.equal(v.to, 'cursor');
  assert.deepEqual(v.mode, ['a', 'b']);
  assert.equal(v.timeout, 7);
});

test('operands only where the command takes them; "-" is one, and everything after "--" is', () => {
  assert.equal(refusal(['--to', 'kilo', 'stray']), 'unexpected argument "stray"');
  assert.deepEqual(parseArgs(WITH_OPERANDS, ['a', '--to', 'kilo', '-', '--', '--dry-run', 'b'], {}).operands, ['a', '-', '--dry-run', 'b']);
  assert.equal(parseArgs(WITH_OPERANDS, ['--to', 'kilo', '--', '--dry-run'], {}).dryRun, false);
});

test('an unknown option is quoted whole, with the declared option it most likely meant', () => {
  assert.equal(refusal(['--projct-root', 'x']), 'unknown option "--projct-root"; did you mean "--project-root"?');
  assert.equal(refusal(['--dryrun']), 'unknown option "--dryrun"; did you mean "--dry-run"?');
  assert.equal(refusal(['--hlep']), 'unknown option "--hlep"; did you mean "--help"?');
  assert.equal(refusal(['--frobnicate=1']), 'unknown option "--frobnicate=1"');
  assert.equal(refusal(['-x']), 'unknown option "-x"');
  assert.equal(refusal(['--bogus']), 'unknown option "--bogus"', 'no guess when nothing is close');
});

test('a missing value: at the end, empty, or because the next word is another option', () => {
  assert.equal(refusal(['--to']), '--to needs a value');
  assert.equal(refusal(['--to=']), '--to needs a value');
  assert.equal(refusal(['--project-root', '']), '--project-root needs a value');
  assert.equal(refusal(['--project-root', '--dry-run']), '--project-root needs a value');
  assert.equal(read(['--to', 'kilo', '--project-root=--odd']).projectRoot, '--odd', 'the = form may give any value');
  assert.equal(read(['--to', 'kilo', '--project-root', '-']).projectRoot, '-');
});

test('a switch takes no value', () => {
  assert.equal(refusal(['--dry-run=yes']), '--dry-run takes no value');
});

test('numbers: whole, decimal, within their range, else what was expected and what came', () => {
  for (const bad of ['soon', '0', '-1', '1.5', '1e3', ' 5']) {
    assert.equal(refusal(['--timeout', bad]), `--timeout must be a positive number of milliseconds, got ${JSON.stringify(bad)}`);
  }
  const port = [{ name: '--port', kind: 'number', value: 'PORT', min: 0, max: 65535, what: 'a port number (0-65535)', help: 'p' }] as const satisfies readonly Option[];
  const cmd: Command<typeof port> = { name: 'p', usage: [], options: port };
  assert.equal(parseArgs(cmd, ['--port', '0'], {}).port, 0);
  assert.equal(parseArgs(cmd, ['--port', '65535'], {}).port, 65535);
  assert.throws(() => parseArgs(cmd, ['--port', '65536'], {}), /^Error: --port must be a port number \(0-65535\), got "65536"$/);
});

test('choices: only the declared ones (no object keys), the list in the refusal and a guess when close', () => {
  assert.equal(refusal(['--to', 'windsurf']), '--to "windsurf": use one of claude-code, cursor or kilo');
  assert.equal(refusal(['--to', 'cusor']), '--to "cusor": use one of claude-code, cursor or kilo; did you mean "cursor"?');
  assert.equal(refusal(['--to', 'constructor']), '--to "constructor": use one of claude-code, cursor or kilo');
  assert.equal(refusal(['--to', 'claude-code', '--hook', 'grpc']), '--hook "grpc": use command or http');
});

test('paths: a leading ~ is $HOME, nothing else is changed', () => {
  const env = { HOME: '/home/someone' };
  assert.equal(read(['--to', 'kilo', '--project-root', '~'], env).projectRoot, '/home/someone');
  assert.equal(read(['--to', 'kilo', '--project-root', '~/p'], env).projectRoot, '/home/someone/p');
  assert.equal(read(['--to', 'kilo', '--project-root', 'a/~/b'], env).projectRoot, 'a/~/b');
  assert.equal(read(['--to', 'kilo', '--project-root', '~other'], env).projectRoot, '~other');
});

test("an option's own parse turns its text into a value, and its refusal is the usage error", () => {
  assert.equal(refusal(['--pair', 'novalue']), '--pair expects K=V, got "novalue"');
});

test('an optional value: bare at the end or before another option, else the next word', () => {
  assert.equal(read(['--to', 'kilo', '--json']).json, true);
  assert.equal(read(['--json', '--to', 'kilo']).json, true);
  assert.equal(read(['--json', '{"a":1}', '--to', 'kilo']).json, '{"a":1}');
  assert.equal(read(['--json={}', '--to', 'kilo']).json, '{}');
});

test('a pair: the option goes with another one given, or holding one of some values (defaults count)', () => {
  assert.equal(read(['--to', 'kilo', '--plugin', '--plugin-url', 'u']).pluginUrl, 'u');
  assert.equal(refusal(['--to', 'kilo', '--plugin-url', 'u']), '--plugin-url goes with --plugin');
  assert.equal(refusal(['--to', 'kilo', '--hook', 'http']), '--hook goes with --to claude-code');
  assert.equal(refusal(['--to', 'claude-code', '--url', 'u']), '--url goes with --hook http', 'the default hook is command');
  assert.equal(read(['--to', 'claude-code', '--hook', 'http', '--url', 'u']).url, 'u');
  const two = [{ name: '--x', kind: 'switch', goesWith: { option: '--y', values: ['a', 'b', 'c'] }, help: 'x' },
    { name: '--y', kind: 'string', value: 'Y', help: 'y' }] as const satisfies readonly Option[];
  assert.throws(() => parseArgs({ name: 't', usage: [], options: two }, ['--x'], {}), /^Error: --x goes with --y a, b or c$/);
});

test('required options, then the command\'s own check; --help skips both but not the reading', () => {
  assert.equal(refusal([]), '--to is required');
  const checked: Command<typeof OPTIONS> = { ...CMD, check: (v) => (v.dryRun && v.plugin ? '--dry-run and --plugin: pick one' : null) };
  assert.equal(refusal(['--to', 'kilo', '--dry-run', '--plugin'], checked), '--dry-run and --plugin: pick one');
  assert.equal(parseArgs(checked, ['--help', '--dry-run', '--plugin'], {}).help, true);
  assert.equal(parseArgs(CMD, ['-h'], {}).help, true);
  assert.equal(refusal(['--help', '--bogus']), 'unknown option "--bogus"');
});

test('--help is generated from the table: synopsis, text, aligned options with defaults, help last', () => {
  const text = helpText({ ...CMD, usage: ['--to AGENT [options]', '--help'], notes: 'Exit status: 0 done.' });
  const lines = text.split('\n');
  assert.equal(lines[0], 'Usage: roo-modes-server try --to AGENT [options]');
  assert.equal(lines[1], '       roo-modes-server try --help');
  assert.equal(lines[3], 'Tries things.');
  assert.equal(lines[5], '  --project-root DIR   the project');
  assert.ok(lines.includes('  --timeout MS         limit for the whole run (default 30000)'), text);
  assert.ok(lines.includes('  --to AGENT           the target (required)'), text);
  assert.ok(lines.includes('  --json [\'{...}\']     an object, or alone: JSON lines'), text);
  assert.equal(lines.at(-4), '  -h, --help           this text');
  assert.equal(lines.at(-2), 'Exit status: 0 done.');
  assert.ok(text.endsWith('done.\n'));
});

test('--help wraps long descriptions under their column, within 100 characters, keeping every word', () => {
  const words = Array.from({ length: 60 }, (_, i) => `word${i}`);
  const long = [{ name: '--long', kind: 'switch', help: `${words.join(' ')}\nsecond line` }] as const satisfies readonly Option[];
  const text = helpText({ name: 'w', usage: [''], options: long });
  const body = text.split('\n').filter((l) => l.startsWith('  '));
  assert.ok(body.every((l) => l.length <= 100), text);
  assert.ok(body.slice(1, -1).every((l) => l.startsWith(' '.repeat(14)) && l[14] !== ' '), text);
  assert.deepEqual(body.join(' ').replace(/^\s*--long\s+/, '').replace(/-h, --help\s+this text$/, '').split(/\s+/).filter(Boolean), [...words, 'second', 'line']);
  assert.ok(body.some((l) => l.trim() === 'second line'), 'a \\n starts a new line');
});

test('readCommand prints a usage error in the one form every subcommand uses, or the help', () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (s: string) => { out.push(s); }, err: (s: string) => { err.push(s); }, env: {} };
  assert.equal(readCommand(CMD, ['--to', 'kilo', '--dryrun'], io), 2);
  assert.deepEqual(err, ['roo-modes-server try: unknown option "--dryrun"; did you mean "--dry-run"? (see roo-modes-server try --help)\n']);
  assert.equal(readCommand(CMD, ['--help'], io), 0);
  assert.deepEqual(out, [helpText(CMD)]);
  const v = readCommand(CMD, ['--to', 'kilo'], io);
  assert.ok(typeof v !== 'number' && v.to === 'kilo');
});
