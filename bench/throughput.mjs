// Throughput: a pipelined burst of tools/call (40% validate_tool_use, 30% get_mode_info, 20%
// list_modes, 10% create_task), timed from the first byte written to the last answer read.
import { join } from 'node:path';
import { Peer, alternate, cpuMsOf, kinds, median, round, row, tempDir } from './lib.mjs';

const SLUGS = ['code', 'architect', 'ask', 'debug', 'orchestrator'];
// A checked tool with its file, in turn: allowed reads, a regex-restricted edit, a command, MCP, an alias.
const CHECKS = [
  { tool_name: 'read_file', file_path: 'src/index.ts' },
  { tool_name: 'write_to_file', file_path: 'docs/notes.md' },
  { tool_name: 'execute_command' },
  { tool_name: 'mcp__github__create_issue' },
  { tool_name: 'apply_diff', file_path: 'src/app.ts' },
];
// One cycle of ten calls: v = validate_tool_use, g = get_mode_info, l = list_modes, c = create_task.
const CYCLE = 'vgvlgvcgvl';

function workload(sessions) {
  return (i) => {
    const k = Math.floor(i / CYCLE.length);
    switch (CYCLE[i % CYCLE.length]) {
      case 'v': return call('validate_tool_use', { session_id: sessions[i % sessions.length], ...CHECKS[k % CHECKS.length] });
      case 'g': return call('get_mode_info', { mode_slug: SLUGS[i % SLUGS.length] });
      case 'l': return call('list_modes', k % 2 === 0 ? {} : { source: 'builtin' });
      default: return call('create_task', { mode_slug: SLUGS[k % SLUGS.length], initial_message: `bench task ${i}` });
    }
  };
}

const call = (name, args) => ({ method: 'tools/call', params: { name, arguments: args } });

export async function throughput({ rounds, requests }) {
  const t = tempDir('throughput');
  const args = ['--config-dir', join(t.dir, 'global-config')];
  const peers = Object.fromEntries(kinds().map((k) => [k, Peer.start(k, { args: k === 'ours' ? args : [], cwd: t.dir })]));
  try {
    await Promise.all(Object.values(peers).map((p) => p.initialize()));
    // Sessions for validate_tool_use are made first, untimed, by each server that keeps them, and
    // reused by every burst (the floor answers anything, so it gets our ids).
    const make = {};
    for (const kind of ['ours', ...(peers.sdk ? ['sdk'] : [])]) {
      const sessions = [];
      for (let i = 0; i < 100; i++) {
        const r = await peers[kind].tool('create_task', { mode_slug: SLUGS[i % SLUGS.length] });
        sessions.push(r.metadata.session_id);
      }
      make[kind] = workload(sessions);
    }
    make.floor = make.sized = make.ours;
    // Server CPU per request is kept beside the wall time: it hardly depends on the machine's load.
    const cpuUs = { ours: [], sdk: [] };
    const burst = async (kind, count) => {
      const cpu0 = cpuMsOf(peers[kind].pid);
      const out = await peers[kind].pipeline(peers[kind].lines(count, make[kind]));
      if (out.errors > 0) throw new Error(`${kind}: ${out.errors} of ${count} calls failed, e.g. ${out.firstError}`);
      cpuUs[kind]?.push(((cpuMsOf(peers[kind].pid) - cpu0) * 1000) / count);
      return out.ms;
    };
    for (const kind of kinds()) await burst(kind, Math.min(requests, 2000)); // JIT warm-up
    const before = peers.ours.bytesRead ?? 0;
    for (const list of Object.values(cpuUs)) list.length = 0; // the warm-up does not count
    const runs = await alternate(rounds, (kind) => burst(kind, requests));
    const rate = (msList) => requests / (median(msList) / 1000);
    const ours = rate(runs.ours);
    const floor = rate(runs.floor);
    const ratio = ours / floor;
    const sdk = peers.sdk ? rate(runs.sdk) : null;
    // Our answers are reports (text + metadata + structuredContent); the floor's are 79 bytes. A
    // second floor pads its canned answer to our average size, to show what the bytes alone cost.
    const answerBytes = Math.round(((peers.ours.bytesRead ?? 0) - before) / (rounds * requests));
    peers.sized = Peer.start('floor', { args: [String(answerBytes)], cwd: t.dir });
    await peers.sized.initialize();
    await burst('sized', Math.min(requests, 2000));
    const sizedRuns = [];
    for (let r = 0; r < rounds; r++) sizedRuns.push(await burst('sized', requests));
    const sized = rate(sizedRuns);
    return [row(`throughput (${requests.toLocaleString('en')} pipelined tools/call)`, {
      ours: `${Math.round(ours).toLocaleString('en')} req/s`, floor: `${Math.round(floor).toLocaleString('en')} req/s`,
      ratio, target: '≥ 0.50× floor', pass: ratio >= 0.5,
      ...(sdk === null ? {} : { sdk: `${Math.round(sdk).toLocaleString('en')} req/s`, sdkRatio: ours / sdk, sdkTarget: '≥ 3.00× SDK', sdkPass: ours / sdk >= 3 }),
      keys: {
        throughput_rps: Math.round(ours), throughput_floor_rps: Math.round(floor), throughput_ratio: round(ratio), answer_bytes: answerBytes,
        ...(sdk === null ? {} : { throughput_sdk_rps: Math.round(sdk), throughput_sdk_ratio: round(ours / sdk) }),
      },
    }), row(`throughput vs a floor answering ${answerBytes}-byte results (our average)`, {
      ours: `${Math.round(ours).toLocaleString('en')} req/s`, floor: `${Math.round(sized).toLocaleString('en')} req/s`,
      ratio: ours / sized, target: '—', pass: null,
      keys: { throughput_sized_floor_rps: Math.round(sized), throughput_sized_ratio: round(ours / sized) },
    }), row('throughput: server CPU per request (user + system)', {
      ours: `${median(cpuUs.ours).toFixed(1)} µs`,
      ...(sdk === null ? {} : { sdk: `${median(cpuUs.sdk).toFixed(1)} µs`, sdkRatio: median(cpuUs.ours) / median(cpuUs.sdk) }),
      keys: { cpu_per_request_us: round(median(cpuUs.ours), 1), ...(sdk === null ? {} : { cpu_per_request_sdk_us: round(median(cpuUs.sdk), 1) }) },
    })];
  } finally {
    await Promise.all(Object.values(peers).map((p) => p.stop()));
    t.cleanup();
  }
}

