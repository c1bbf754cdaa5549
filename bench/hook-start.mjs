// The hook's start as an agent pays it before every tool call it guards: wall time from spawn to exit
// of the self-contained check (`node dist/roo-modes-check.cjs hook …`, what exports copy into
// projects) and of the command hook (`node dist/main.cjs hook …`), answering one PreToolUse event
// with a 100-mode .roomodes, beside `node -e 0` given the same event, alternating round by round:
// each process's own CPU (user + system, Node's start included) and its wall time from spawn to exit.
// Usage: node bench/hook-start.mjs [--rounds=N]   (prints the table and one key=value line), or
// node bench/run.mjs --only=hookstart. BENCH_BASE_MAIN=/other/dist/main.cjs adds that build's
// command hook and check file to the same rotation (an A/B of a change; a detail line on stderr).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO, SERVER_MAIN, alternate, median, ms, now, printTable, projectWithModes, round, row } from './lib.mjs';

/** The check file timed (BENCH_CHECK: another build's, to compare; BENCH_SERVER_MAIN likewise for the command hook). */
const CHECK = process.env.BENCH_CHECK ?? join(REPO, 'dist', 'roo-modes-check.cjs');
/** Another build to time beside ours, by its dist/main.cjs (its check file beside it). */
const BASE_MAIN = process.env.BENCH_BASE_MAIN;
/** Issue 33: both start within 1.15× Node's own start. */
const TARGET = 1.15;

const CPU_AT_EXIT = join(REPO, 'bench', 'cpu-at-exit.cjs');

/**
 * One run: spawn, write the event, wait for exit; the wall milliseconds and the process's own CPU
 * milliseconds (printed by cpu-at-exit.cjs, preloaded into every process alike). Throws on a wrong answer.
 */
function once(args, input, expectDeny) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const child = spawn(process.execPath, ['-r', CPU_AT_EXIT, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c) => { out += c; });
    child.stderr.setEncoding('utf8').on('data', (c) => { err += c; });
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = now() - t0;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}: ${err}`));
      if (expectDeny !== null && out.includes('"deny"') !== expectDeny) return reject(new Error(`unexpected answer: ${out}`));
      const cpu = /cpu-us (\d+)\n$/.exec(err);
      if (!cpu) return reject(new Error(`no CPU figure on stderr: ${err}`));
      resolve({ wall, cpu: Number(cpu[1]) / 1000 });
    });
    child.stdin.on('error', () => { /* node -e 0 may exit before reading */ });
    child.stdin.end(input);
  });
}

export async function hookStart({ rounds }) {
  const p = projectWithModes(100);
  mkdirSync(join(p.dir, 'src'));
  let edits = 0;
  try {
    const rows = [];
    // gen-00050 has no edit group: the Edit is refused after the file is read in full. `changed`: a
    // comment line is added to the file before each run, as after an edit, so no parse kept of it fits.
    for (const [label, key, slug, changed] of [
      ['a .roomodes of 100 modes, asking one of them', 'own', 'gen-00050', false],
      ['the same, the file just changed', 'changed', 'gen-00050', true],
      ['a .roomodes of 100 modes, asking a built-in', 'builtin', 'architect', false],
    ]) {
      const event = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Edit', cwd: p.dir, tool_input: { file_path: join(p.dir, 'src', 'main.ts'), old_string: 'a', new_string: 'b' } });
      const args = ['hook', 'claude-code', '--mode', slug, '--project-root', p.dir, '--config-dir', p.configDir];
      const files = { check: CHECK, command: SERVER_MAIN, ...(BASE_MAIN ? { 'base-check': join(dirname(BASE_MAIN), 'roo-modes-check.cjs'), 'base-command': BASE_MAIN } : {}) };
      const run = (kind) => {
        if (changed && kind !== 'floor') appendFileSync(p.file, `# edit ${edits++}\n`);
        if (kind === 'floor') return once(['-e', '0'], event, null);
        return once([files[kind], ...args], event, true);
      };
      const kinds = ['floor', ...Object.keys(files)];
      for (const kind of kinds) { await run(kind); await run(kind); }
      const runs = await alternate(rounds, run, kinds);
      if (BASE_MAIN) {
        const cpu = (kind) => median(runs[kind].map((r) => r.cpu));
        process.stderr.write(`hookstart ${key}: CPU check ${ms(cpu('check'))} (base ${ms(cpu('base-check'))}), command ${ms(cpu('command'))} (base ${ms(cpu('base-command'))}), node -e 0 ${ms(cpu('floor'))}\n`);
      }
      for (const measure of ['cpu', 'wall']) {
        const floor = median(runs.floor.map((r) => r[measure]));
        for (const kind of ['check', 'command']) {
          const ours = median(runs[kind].map((r) => r[measure]));
          const ratio = ours / floor;
          const name = `hook_start_${key}_${kind}_${measure}`;
          rows.push(row(`${kind === 'check' ? 'check file' : 'command hook'} ${measure === 'cpu' ? 'CPU' : 'wall'}, ${label}`, {
            ours: ms(ours), floor: `${ms(floor)} (node -e 0)`, ratio, target: `≤ ${TARGET.toFixed(2)}× node -e 0`, pass: ratio <= TARGET,
            keys: { [`${name}_ms`]: round(ours, 1), [`${name}_node_ms`]: round(floor, 1), [`${name}_ratio`]: round(ratio) },
          }));
        }
      }
    }
    return rows;
  } finally {
    p.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 21);
  const rows = await hookStart({ rounds });
  printTable(rows);
  console.log(rows.flatMap((r) => Object.entries(r.keys)).map(([k, v]) => `${k}=${v}`).join(' '));
}
