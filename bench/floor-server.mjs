// The floor: the least a stdio JSON-RPC peer can do. It reads lines, JSON.parses each and answers
// every request with a canned result under the same id. It must never validate or dispatch anything.
const INIT_RESULT = JSON.stringify({
  protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'floor', version: '0' },
});
// `node floor-server.mjs N` pads the canned answer to about N bytes, to compare at equal output size.
const PAD = Math.max(0, Number(process.argv[2] ?? 0) - 60);
const CANNED_RESULT = JSON.stringify({ content: [{ type: 'text', text: `ok${' '.repeat(PAD)}` }] });

function serve() {
  const state = { tail: '' };
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    const lines = (state.tail + chunk).split('\n');
    state.tail = lines.pop() ?? '';
    let out = '';
    for (const line of lines) {
      if (line === '') continue;
      let msg;
      try { msg = JSON.parse(line); } catch { continue; }
      if (msg === null || typeof msg !== 'object' || msg.id === undefined) continue; // notifications
      out += `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${msg.method === 'initialize' ? INIT_RESULT : CANNED_RESULT}}\n`;
    }
    if (out !== '') process.stdout.write(out);
  });
}

serve();
