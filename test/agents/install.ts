// Installs the pinned agent CLIs (agents.ts) into the cache folder, each with npm into its own
// folder, and checks that each runs and is the pinned release. It never touches the project.
// Usage: node --import tsx test/agents/install.ts [--check] [AGENT ...]   (exit 1 when one fails)
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { AGENT_IDS, PINS, agentCommand, agentsCache, installDir, type AgentId } from './agents.js';

/** An install can be slow on a busy registry; a stuck one must still end. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const VERSION_TIMEOUT_MS = 60_000;

function run(argv: string[], timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => { out += t; });
    child.stderr.setEncoding('utf8').on('data', (t: string) => { out += t; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); out += `\n(killed after ${timeoutMs} ms)`; }, timeoutMs);
    child.on('error', (err) => { out += `\n${err.message}`; });
    child.on('close', (code) => { clearTimeout(timer); done({ code, out }); });
  });
}

/** undefined when the installed command answers `--version` with the pinned version, else why not. */
async function versionProblem(id: AgentId): Promise<string | undefined> {
  const argv = agentCommand(id);
  if (!argv) return 'not installed';
  const r = await run([...argv, '--version'], VERSION_TIMEOUT_MS);
  if (r.code !== 0) return `--version exited with ${r.code}: ${r.out.trim().slice(-500)}`;
  return r.out.includes(PINS[id].version) ? undefined : `--version printed ${JSON.stringify(r.out.trim().slice(0, 200))}, expected ${PINS[id].version}`;
}

async function ensure(id: AgentId, checkOnly: boolean): Promise<string | undefined> {
  const pin = PINS[id];
  const spec = `${pin.package}@${pin.version}`;
  const before = await versionProblem(id);
  if (before === undefined) { console.log(`${id}: ${spec} present in ${installDir(id)}`); return undefined; }
  if (checkOnly) return `${id}: ${spec}: ${before}`;
  const dir = installDir(id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const npm = await run(['npm', 'install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', spec], INSTALL_TIMEOUT_MS);
  if (npm.code !== 0) return `${id}: npm install ${spec} exited with ${npm.code}:\n${npm.out.trim().slice(-2000)}`;
  const after = await versionProblem(id);
  if (after !== undefined) return `${id}: ${spec} installed in ${dir} but does not run: ${after}`;
  console.log(`${id}: installed ${spec} in ${dir}`);
  return undefined;
}

const args = process.argv.slice(2);
const checkOnly = args.includes('--check');
const named = args.filter((a) => a !== '--check');
const unknown = named.filter((a) => !(AGENT_IDS as string[]).includes(a));
if (unknown.length > 0) {
  console.error(`install.ts: unknown agent ${unknown.join(', ')}; known: ${AGENT_IDS.join(', ')}`);
  process.exit(2);
}
const ids = named.length > 0 ? named as AgentId[] : AGENT_IDS;
mkdirSync(agentsCache(), { recursive: true });
// The downloads wait on the network, so all at once.
const problems = (await Promise.all(ids.map((id) => ensure(id, checkOnly)))).filter((p): p is string => p !== undefined);
for (const p of problems) console.error(p);
process.exitCode = problems.length > 0 ? 1 : 0;
