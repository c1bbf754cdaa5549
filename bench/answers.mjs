// Bytes per answer, per tool: the same seven calls on our server and on the SDK peer, the whole
// answer line counted in UTF-8 bytes. Deterministic (no timing), so it holds on a loaded machine.
import { join } from 'node:path';
import { Peer, kinds, round, row, tempDir } from './lib.mjs';

// Each call may use the session made by the first one ($session is replaced by its id).
const CALLS = [
  ['create_task', { mode_slug: 'code', initial_message: 'bench task 1' }],
  ['validate_tool_use', { session_id: '$session', tool_name: 'read_file', file_path: 'src/index.ts' }],
  ['validate_tool_use', { session_id: '$session', tool_name: 'browser_action' }],
  ['get_mode_info', { mode_slug: 'code' }],
  ['list_modes', {}],
  ['switch_mode', { session_id: '$session', new_mode_slug: 'architect', reason: 'plan first' }],
  ['get_task_info', { session_id: '$session' }],
  ['complete_task', { session_id: '$session', status: 'completed', result: 'done' }],
];

async function sizes(kind, args, cwd) {
  const peer = Peer.start(kind, { args: kind === 'ours' ? args : [], cwd });
  try {
    await peer.initialize();
    let session = '';
    const out = [];
    for (const [name, a] of CALLS) {
      const params = Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v === '$session' ? session : v]));
      const line = await peer.request('tools/call', { name, arguments: params });
      if (line.includes('"error":{')) throw new Error(`${kind}: ${name} failed: ${line.slice(0, 300)}`);
      if (name === 'create_task') session = JSON.parse(line).result.metadata.session_id;
      out.push(Buffer.byteLength(line) + 1); // + the newline
    }
    return out;
  } finally {
    await peer.stop();
  }
}

export async function answers() {
  const t = tempDir('answers');
  try {
    const args = ['--config-dir', join(t.dir, 'global-config')];
    const ours = await sizes('ours', args, t.dir);
    const sdk = kinds().includes('sdk') ? await sizes('sdk', args, t.dir) : null;
    return CALLS.map(([name, a], i) => {
      const label = name === 'validate_tool_use' ? `${name} (${a.file_path ? 'with a file' : 'no file'})` : name;
      const key = `${name}${name === 'validate_tool_use' ? (a.file_path ? '_file' : '_plain') : ''}`;
      return row(`bytes per answer: ${label}`, {
        ours: `${ours[i]} B`, ...(sdk === null ? {} : { sdk: `${sdk[i]} B`, sdkRatio: ours[i] / sdk[i] }),
        keys: { [`bytes_${key}`]: ours[i], ...(sdk === null ? {} : { [`bytes_${key}_sdk`]: sdk[i], [`bytes_${key}_ratio`]: round(ours[i] / sdk[i]) }) },
      });
    });
  } finally {
    t.cleanup();
  }
}
