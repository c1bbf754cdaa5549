// The browser tier's rig: the built server with a client that offers MCP Apps (either era), the
// test host page in headless Chromium showing the view the server gives, and the calls between them
// (the host's server requests go to the test through a DevTools binding and on to the server).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, tempDir, type ServerProcess } from '../protocol/harness.js';
import { Session, idKey, isRecord, succeeded, type TestCtx } from '../protocol/official-check.js';
import { chromiumMissing, launchChromium, type Cdp, type CdpEvent } from './cdp.js';
import { servePages, type Pages } from './pages.js';

/** The official package's release whose host side (AppBridge) the tier runs; changed on purpose. */
export const EXT_APPS = '2.0.4';
const CACHE = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'roo-modes-server', `ext-apps-${EXT_APPS}`);
const NODE_MODULES = join(CACHE, 'node_modules');
/** Its peers pinned too, so the cache holds the same code wherever it is filled. */
export const INSTALL = `npm install --prefix ${CACHE} --no-save --no-package-lock @modelcontextprotocol/ext-apps@${EXT_APPS} @modelcontextprotocol/client@2.4.0 @modelcontextprotocol/core@2.4.0 zod@4.6.7`;

function extAppsMissing(): string | null {
  const pkg = join(NODE_MODULES, '@modelcontextprotocol', 'ext-apps', 'package.json');
  const version = existsSync(pkg) ? (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version : null;
  return version === EXT_APPS ? null : `@modelcontextprotocol/ext-apps ${EXT_APPS} is not in ${CACHE} (${INSTALL}, then node test/run.mjs test/browser)`;
}

/** Why the tier cannot run here (one line), or false. */
export const browserTierMissing: string | false = chromiumMissing ?? extAppsMissing() ?? false;

/** Screenshots and other artefacts of the tier: an ignored folder of the checkout. */
export const ARTEFACTS = fileURLToPath(new URL('../../.tmp/artifacts/', import.meta.url));

const UI = 'io.modelcontextprotocol/ui';
export const WITH_APPS = { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } };
export type Era = '2025-11-25' | '2026-07-28';

export interface Rig {
  cdp: Cdp;
  s: ServerProcess;
  session: Session;
  pages: Pages;
  project: string;
  /** The DevTools sessions of the host page and of the view's frame. */
  page: string;
  frame: string;
  /** What went wrong in the view: exceptions, console errors, refused loads (CSP). */
  viewErrors: string[];
  /** Every URL the host page and the view asked for. */
  urls: { page: string[]; frame: string[] };
  /** Resolves with the value `test` (a function's source, run in the view) returns once truthy. */
  until<T>(test: string, what: string, timeoutMs?: number): Promise<T>;
  /** The host page's next event of `name` (subscribe before causing it). */
  hostEvent(name: string, timeoutMs?: number): Promise<Record<string, any>>;
  key(key: string, modifiers?: number): Promise<void>;
  screenshot(name: string): Promise<string>;
}

const KEYS: Readonly<Record<string, { code: string; keyCode: number; text?: string }>> = {
  ArrowRight: { code: 'ArrowRight', keyCode: 39 }, ArrowLeft: { code: 'ArrowLeft', keyCode: 37 },
  ArrowDown: { code: 'ArrowDown', keyCode: 40 }, ArrowUp: { code: 'ArrowUp', keyCode: 38 },
  Home: { code: 'Home', keyCode: 36 }, End: { code: 'End', keyCode: 35 }, Enter: { code: 'Enter', keyCode: 13, text: '\r' },
};

/**
 * Starts it all: a project with `roomodes`, the server, the client of `era` (with the extension),
 * the view read as its tools say, `tool` called as a model would, and the host showing the view.
 */
export async function openRig(t: TestCtx, era: Era, roomodes: string, tool: { name: string; args: Record<string, unknown> }, hostContext: Record<string, unknown>): Promise<Rig> {
  // Named as a user's project would be: the name heads the view (and the screenshots).
  const project = join(tempDir(t, 'rms-browser-'), 'my-project');
  mkdirSync(project);
  writeFileSync(join(project, '.roomodes'), roomodes);
  const s = startServer(t, { args: ['--project-root', project] });
  const session = era === '2026-07-28'
    ? new Session(s, { 'io.modelcontextprotocol/protocolVersion': era, 'io.modelcontextprotocol/clientCapabilities': WITH_APPS, 'io.modelcontextprotocol/clientInfo': { name: 'rms-test-host', version: '1' } })
    : new Session(s);
  if (era === '2026-07-28') {
    // Changes reach a 2026-07-28 client on a listen stream it opened.
    session.methodOf.set(idKey('listen'), 'subscriptions/listen');
    s.request('listen', 'subscriptions/listen', session.withMeta({ notifications: { resourcesListChanged: true } }));
    await s.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged', 5000, 'the listen acknowledgement');
  } else {
    succeeded(await s.initialize(era, WITH_APPS), 'initialize');
  }
  const tools = await session.all('tools/list', 'tools') as Record<string, any>[];
  const uri = tools.find((x) => x.name === tool.name)?._meta?.ui?.resourceUri as string;
  assert.match(uri, /^ui:\/\//, `${tool.name} names a view`);
  const [content] = succeeded(await session.call('resources/read', { uri }), 'read the view').contents as Record<string, string>[];
  assert.equal(content!.mimeType, 'text/html;profile=mcp-app');
  const toolResult = succeeded(await session.tool(tool.name, tool.args), tool.name);

  const pages = await servePages(NODE_MODULES);
  t.after(() => pages.close());
  pages.setView(content!.text!);
  const browser = launchChromium();
  t.after(() => browser.close());
  const { cdp } = browser;

  const viewErrors: string[] = [];
  const urls = { page: [] as string[], frame: [] as string[] };
  const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId: page } = await cdp.send('Target.attachToTarget', { targetId, flatten: true }) as { sessionId: string };
  const frameSession = { id: '' };
  const pageErrors: string[] = [];
  cdp.on((e: CdpEvent) => {
    if (e.method === 'Network.requestWillBeSent') (e.sessionId === page ? urls.page : urls.frame).push(e.params.request.url as string);
    if (e.sessionId === page && e.method === 'Runtime.exceptionThrown') pageErrors.push(e.params.exceptionDetails.exception?.description ?? e.params.exceptionDetails.text);
    if (e.sessionId === page && e.method === 'Runtime.consoleAPICalled' && e.params.type === 'error') pageErrors.push(JSON.stringify(e.params.args.map((a: any) => a.value ?? a.description)));
    if (e.sessionId !== frameSession.id || frameSession.id === '') return;
    if (e.method === 'Runtime.exceptionThrown') viewErrors.push(`exception: ${e.params.exceptionDetails.exception?.description ?? e.params.exceptionDetails.text}`);
    if (e.method === 'Runtime.consoleAPICalled' && (e.params.type === 'error' || e.params.type === 'warning')) viewErrors.push(`console.${e.params.type}: ${JSON.stringify(e.params.args.map((a: any) => a.value ?? a.description))}`);
    if (e.method === 'Log.entryAdded' && (e.params.entry.level === 'error' || e.params.entry.source === 'security')) viewErrors.push(`log: ${e.params.entry.text}`);
  });
  // The host page's server requests, answered on the session as the host's own client would.
  cdp.on((e: CdpEvent) => {
    if (e.method !== 'Runtime.bindingCalled' || e.sessionId !== page) return;
    const msg = JSON.parse(e.params.payload as string) as Record<string, any>;
    if (msg.kind !== 'request') return;
    void session.call(msg.method, msg.params).then((res) => {
      const reply = res.error ? { id: msg.id, error: res.error } : { id: msg.id, result: res.result };
      return cdp.evaluate(page, `rmsReply(${JSON.stringify(JSON.stringify(reply))})`);
    });
  });
  const hostEvent = (name: string, timeoutMs = 15_000): Promise<Record<string, any>> => cdp.next(
    (e) => e.method === 'Runtime.bindingCalled' && e.sessionId === page && (JSON.parse(e.params.payload as string) as { kind: string; name?: string }).name === name,
    timeoutMs, `the host's ${name} event`,
  ).catch((err: Error) => { throw new Error(`${err.message}; the host page said: ${pageErrors.join(' | ') || 'nothing'}`); }).then((e) => JSON.parse(e.params.payload as string) as Record<string, any>);

  await Promise.all(['Page.enable', 'Runtime.enable', 'Network.enable'].map((m) => cdp.send(m, {}, page)));
  await cdp.send('Emulation.setDeviceMetricsOverride', { width: 1000, height: 900, deviceScaleFactor: 1, mobile: false }, page);
  await cdp.send('Runtime.addBinding', { name: 'rmsHost' }, page);
  // The view's frame (another site, so another target) waits for us before it runs a line.
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, page);
  const ready = hostEvent('ready');
  await cdp.send('Page.navigate', { url: pages.hostUrl }, page);
  await ready;

  const attached = cdp.next((e) => e.method === 'Target.attachedToTarget' && e.sessionId === page && e.params.targetInfo.type === 'iframe', 15_000, 'the view\'s frame');
  const initialized = hostEvent('initialized');
  await cdp.evaluate(page, `rmsStart(${JSON.stringify({ viewUrl: pages.viewUrl, hostContext, toolArgs: tool.args, toolResult })})`);
  const frame = (await attached).params.sessionId as string;
  frameSession.id = frame;
  await Promise.all(['Runtime.enable', 'Log.enable', 'Network.enable'].map((m) => cdp.send(m, {}, frame)));
  await cdp.send('Runtime.runIfWaitingForDebugger', {}, frame);
  const init = await initialized;
  assert.deepEqual(init.app, { name: 'roo-modes-view', version: '1' }, 'the view introduced itself in ui/initialize');

  const until = <T>(test: string, what: string, timeoutMs = 10_000): Promise<T> => cdp.evaluate<T>(frame, `new Promise((resolve, reject) => {
    const test = () => { try { return (${test})(); } catch { return undefined; } };
    const observer = new MutationObserver(() => { const v = test(); if (v) done(v); });
    const timer = setTimeout(() => { observer.disconnect(); reject(new Error(${JSON.stringify(`timed out waiting for ${what}`)})); }, ${timeoutMs});
    const done = (v) => { clearTimeout(timer); observer.disconnect(); resolve(v); };
    observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    const first = test(); if (first) done(first);
  })`);
  const key = async (name: string, modifiers = 0): Promise<void> => {
    const k = KEYS[name]!;
    const base = { key: name, code: k.code, windowsVirtualKeyCode: k.keyCode, nativeVirtualKeyCode: k.keyCode, modifiers };
    await cdp.send('Input.dispatchKeyEvent', { type: k.text ? 'keyDown' : 'rawKeyDown', ...base, ...(k.text ? { text: k.text } : {}) }, page);
    await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...base }, page);
  };
  const screenshot = async (name: string): Promise<string> => {
    // The host sizes the frame when the view reports its height (ui/notifications/size-changed):
    // the picture waits for the frame to hold the whole page.
    const height = await cdp.evaluate<number>(frame, `(() => { const r = document.documentElement; const kept = r.style.height; r.style.height = 'max-content';
      const h = Math.ceil(r.getBoundingClientRect().height); r.style.height = kept; return h; })()`);
    await cdp.evaluate(page, `new Promise((resolve, reject) => { const f = document.querySelector('iframe');
      const timer = setTimeout(() => reject(new Error('the host never sized the view to ${height} px (at ' + f.clientHeight + ')')), 5000);
      const check = () => { if (f.clientHeight >= ${height}) { clearTimeout(timer); resolve(); } else requestAnimationFrame(check); }; check(); })`);
    const { cssContentSize } = await cdp.send('Page.getLayoutMetrics', {}, page) as { cssContentSize: { width: number; height: number } };
    const shot = await cdp.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, clip: { x: 0, y: 0, width: cssContentSize.width, height: cssContentSize.height, scale: 1 } }, page) as { data: string };
    mkdirSync(ARTEFACTS, { recursive: true });
    const file = join(ARTEFACTS, `${name}.png`);
    writeFileSync(file, Buffer.from(shot.data, 'base64'));
    return file;
  };
  return { cdp, s, session, pages, project, page, frame, viewErrors, urls, until, hostEvent, key, screenshot };
}

export { isRecord };
