// The wire cost of the stateless 2026-07-28 era: the same calls answered on a legacy (initialize)
// connection and on a stateless one, compared byte for byte (deterministic), plus their pace.
import { Peer, median, ms, now, round, row } from './lib.mjs';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
/** Extra bytes per answer we accept for resultType, serverInfo and (on lists) the caching hints. */
const TARGET_BYTES = 160;

/** The calls whose answers are compared: one of each kind a client makes often. */
const CALLS = [
  ['tools/call list_modes', 'tools/call', { name: 'list_modes', arguments: {} }],
  ['tools/call get_mode_info', 'tools/call', { name: 'get_mode_info', arguments: { mode_slug: 'code' } }],
  ['tools/call validate_tool_use', 'tools/call', (sid) => ({ name: 'validate_tool_use', arguments: { session_id: sid, tool_name: 'read_file' } })],
  ['tools/list', 'tools/list', {}],
  ['resources/read', 'resources/read', { uri: 'mode://architect/config' }],
  ['prompts/list', 'prompts/list', {}],
  ['error (unknown mode)', 'tools/call', { name: 'get_mode_info', arguments: { mode_slug: 'ghost' } }],
];

const withMeta = (stateless, params) => (stateless ? { ...params, _meta: META } : params);

async function open(stateless) {
  const peer = Peer.start('ours');
  if (stateless) await peer.call('server/discover', { _meta: META });
  else await peer.initialize();
  const created = JSON.parse(await peer.request('tools/call', withMeta(stateless, { name: 'create_task', arguments: { mode_slug: 'code' } })));
  return { peer, sid: created.result.structuredContent.session_id };
}

/** Answers' byte lengths for CALLS, and the time of `count` pipelined validate_tool_use calls. */
async function measure(stateless, count) {
  const { peer, sid } = await open(stateless);
  try {
    const bytes = [];
    for (const [, method, params] of CALLS) {
      const p = typeof params === 'function' ? params(sid) : params;
      bytes.push(Buffer.byteLength(await peer.request(method, withMeta(stateless, p))) + 1);
    }
    const burst = peer.lines(count, () => ({ method: 'tools/call', params: withMeta(stateless, { name: 'validate_tool_use', arguments: { session_id: sid, tool_name: 'read_file' } }) }));
    const t = await peer.pipeline(burst);
    if (t.errors > 0) throw new Error(`${t.errors} errors, first: ${t.firstError}`);
    return { bytes, ms: t.ms };
  } finally {
    await peer.stop();
  }
}

export async function eras({ rounds, requests }) {
  const legacyMs = [];
  const statelessMs = [];
  let legacy;
  let modern;
  for (let r = 0; r < rounds; r++) {
    legacy = await measure(false, requests);
    modern = await measure(true, requests);
    legacyMs.push(legacy.ms);
    statelessMs.push(modern.ms);
  }
  const extra = legacy.bytes.map((b, i) => modern.bytes[i] - b);
  const worst = Math.max(...extra);
  const details = CALLS.map(([label], i) => `  ${label}: ${legacy.bytes[i]} → ${modern.bytes[i]} bytes (+${extra[i]})`);
  const reqExtra = Buffer.byteLength(JSON.stringify({ _meta: META })) - 2;
  const perCall = (list) => median(list) / requests;
  return {
    rows: [
      row('2026-07-28 extra bytes per answer (max)', {
        ours: `+${worst} B`, floor: '—', target: `≤ ${TARGET_BYTES} B`, pass: worst <= TARGET_BYTES,
        keys: { eras_extra_bytes_max: worst, eras_extra_bytes_min: Math.min(...extra), eras_request_meta_bytes: reqExtra },
      }),
      row('validate_tool_use pipelined, stateless vs legacy', {
        ours: `${ms(perCall(statelessMs) * 1000)}/1k`, floor: `${ms(perCall(legacyMs) * 1000)}/1k`,
        ratio: median(statelessMs) / median(legacyMs), target: 'info', pass: null,
        keys: { eras_stateless_vs_legacy_time: round(median(statelessMs) / median(legacyMs)) },
      }),
    ],
    notes: [`2026-07-28 answer sizes (legacy → stateless; each request also carries ${reqExtra} bytes of _meta):`, ...details],
  };
}
