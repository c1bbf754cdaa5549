// The test host's page script: one AppBridge (from @modelcontextprotocol/ext-apps, loaded through the
// import map) per view frame. Server requests go to the test through the `rmsHost` binding, which
// answers through window.rmsReply; the test drives the host with window.rmsStart and friends.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

const pending = new Map();
const ids = { next: 1 };
const toTest = (msg) => window.rmsHost(JSON.stringify(msg));

/** A request to the MCP server, made by the test on the host's connection. */
function server(method, params) {
  const id = ids.next++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    toTest({ kind: 'request', id, method, params });
  });
}

window.rmsReply = (json) => {
  const msg = JSON.parse(json);
  const waiting = pending.get(msg.id);
  if (!waiting) return;
  pending.delete(msg.id);
  if (msg.error) waiting.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code, data: msg.error.data }));
  else waiting.resolve(msg.result);
};

/** Shows the view at `viewUrl` as the result of a tool call (`toolArgs` in, `toolResult` out). */
window.rmsStart = async ({ viewUrl, hostContext, toolArgs, toolResult }) => {
  document.body.classList.toggle('dark', hostContext.theme === 'dark');
  const frame = document.createElement('iframe');
  frame.title = 'modes view';
  // A view runs with scripts only, in an origin of its own (the server that gives it sets its CSP).
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.src = viewUrl;
  document.body.append(frame);
  const bridge = new AppBridge(null, { name: 'rms-test-host', version: '1' },
    { serverTools: {}, serverResources: { listChanged: true }, logging: {} }, { hostContext });
  bridge.oncalltool = (params) => server('tools/call', params);
  bridge.onreadresource = (params) => server('resources/read', params);
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${height}px`;
    toTest({ kind: 'event', name: 'size', height });
  };
  bridge.onloggingmessage = (params) => toTest({ kind: 'event', name: 'log', params });
  bridge.oninitialized = () => {
    bridge.sendToolInput({ arguments: toolArgs });
    bridge.sendToolResult(toolResult);
    toTest({ kind: 'event', name: 'initialized', app: bridge.getAppVersion() ?? null });
  };
  window.rmsBridge = bridge;
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
};

/** The server said its resources changed: tell the view, as a host passes it on. */
window.rmsResourcesChanged = () => window.rmsBridge.sendResourceListChanged({});

/** The host's look changed (a theme toggle). */
window.rmsContext = (context) => {
  if (context.theme) document.body.classList.toggle('dark', context.theme === 'dark');
  return window.rmsBridge.sendHostContextChange(context);
};

toTest({ kind: 'event', name: 'ready' });
