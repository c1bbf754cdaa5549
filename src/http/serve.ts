// `serve --http`: checks the bind rule, listens, prints the ready line on stderr, and on SIGTERM
// drains requests and flushes the shared services. It never writes stdout (nothing reads it here).
import type { AddressInfo } from 'node:net';
import type { Core } from '../core.js';
import type { ParsedArgs } from '../config.js';
import { httpBounds } from '../bounds.js';
import { HttpDoor } from './server.js';
import { descriptorLimit } from './sockets.js';
import { bindProblem } from './security.js';

export interface ServeIo { err(text: string): void; closeLog(): Promise<void> }

export async function serveHttp(core: Core, args: ParsedArgs, io: ServeIo): Promise<number> {
  const { http, server } = core.config;
  const problem = bindProblem(http.host, http.token, args.insecureNoAuth === true);
  if (problem) { io.err(`roo-modes-server: ${problem}\n`); return 2; }
  const door = new HttpDoor(core, {
    path: http.path, bounds: httpBounds(server.max_message_bytes, http, descriptorLimit()),
    gate: { bindHost: http.host, allowedOrigins: http.allowed_origins.map((o) => o.replace(/\/$/, '')), token: http.token },
  });
  await storeFirst(core, io);
  try {
    await new Promise<void>((resolve, reject) => {
      door.server.once('error', reject);
      door.server.listen(http.port, http.host, () => { door.server.off('error', reject); resolve(); });
    });
  } catch (err) {
    io.err(`roo-modes-server: cannot listen on ${http.host}:${http.port}: ${(err as Error).message}\n`);
    return 2;
  }
  const address = door.server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  io.err(`roo-modes-server: listening on http://${shownHost}:${address.port}${http.path}\n`);
  if (!http.token && args.insecureNoAuth) io.err('roo-modes-server: warning: no token on a non-loopback address (--insecure-no-auth)\n');
  // The mode files are read once listening, so their problems are logged at start.
  core.modes().catch(() => { /* logged by the loader */ });
  await new Promise<void>((resolve) => {
    const onSignal = (): void => { process.off('SIGTERM', onSignal); process.off('SIGINT', onSignal); resolve(); };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  await door.drain();
  await core.close();
  await io.closeLog();
  return 0;
}

/**
 * With a store, listening waits (a bounded time) for its first connection, so a replica that says
 * it is listening can serve sessions: a balancer sending it requests at once gets answers, not 503s.
 * A store still away after the wait does not stop the start; the server says so and reconnects.
 */
async function storeFirst(core: Core, io: ServeIo): Promise<void> {
  const pending = core.store();
  if (!pending) return;
  const store = await pending;
  const up = await store.firstConnection();
  if (up) return;
  const why = store.client.lastError;
  io.err(why?.kind === 'auth'
    ? `roo-modes-server: warning: the store ${store.shownUrl} refused the credentials (${why.message}); serving anyway: tools that need the store fail until the password in the store URL (ROO_MODES_STORE) or Redis is fixed\n`
    : `roo-modes-server: warning: the store ${store.shownUrl} is not reachable yet (${why?.message ?? 'no answer'}); serving anyway: tools that need it answer "retry later" until it is\n`);
}
