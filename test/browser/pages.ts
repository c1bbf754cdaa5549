// The browser tier's web server on loopback: the test host (http://127.0.0.1:PORT) with ext-apps'
// modules from the cache folder, and the view (http://localhost:PORT, another origin) served under
// the CSP an MCP Apps host must apply to a view that declares no domains. Records every request.
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importMap } from './import-map.js';

const HOST_DIR = fileURLToPath(new URL('./host/', import.meta.url));

/** The extension's restrictive default (specification/2026-01-26/apps.mdx, "Host Behavior"). */
export const VIEW_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'";

const TYPES: Readonly<Record<string, string>> = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.html': 'text/html; charset=utf-8' };

export interface Pages {
  hostUrl: string;
  viewUrl: string;
  /** Every request: its Host header and path. */
  requests: { host: string; url: string }[];
  setView(html: string): void;
  close(): Promise<void>;
}

export async function servePages(nodeModules: string): Promise<Pages> {
  const map = importMap(join(nodeModules, '@modelcontextprotocol', 'ext-apps', 'dist', 'src', 'app-bridge.js'), nodeModules, '/nm');
  map['@modelcontextprotocol/ext-apps/app-bridge'] = '/nm/@modelcontextprotocol/ext-apps/dist/src/app-bridge.js';
  const hostPage = readFileSync(join(HOST_DIR, 'host.html'), 'utf8').replace('/*IMPORTMAP*/', () => JSON.stringify({ imports: map }));
  const view = { html: '' };
  const requests: Pages['requests'] = [];
  const server: Server = createServer((req, res) => {
    const host = req.headers.host ?? '';
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push({ host, url: path });
    const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers }).end(body);
    };
    if (host.startsWith('localhost:') && path === '/view.html') return send(200, TYPES['.html']!, view.html, { 'content-security-policy': VIEW_CSP });
    if (!host.startsWith('127.0.0.1:')) return send(404, 'text/plain', 'not here');
    if (path === '/host.html') return send(200, TYPES['.html']!, hostPage);
    if (path === '/host.js') return send(200, TYPES['.js']!, readFileSync(join(HOST_DIR, 'host.js')));
    if (path.startsWith('/nm/')) {
      const file = resolve(nodeModules, `.${decodeURIComponent(path.slice(3))}`);
      if (!file.startsWith(nodeModules + sep)) return send(403, 'text/plain', 'outside');
      try { return send(200, TYPES[extname(file)] ?? 'application/octet-stream', readFileSync(file)); } catch { return send(404, 'text/plain', 'no such file'); }
    }
    return send(404, 'text/plain', 'no such page');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    hostUrl: `http://127.0.0.1:${port}/host.html`,
    viewUrl: `http://localhost:${port}/view.html`,
    requests,
    setView(html) { view.html = html; },
    close: () => new Promise((done) => { server.closeAllConnections(); server.close(() => done()); }),
  };
}
