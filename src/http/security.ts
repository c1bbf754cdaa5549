// Who may talk to the HTTP door: Host and Origin checks against DNS rebinding, the optional bearer
// token (compared in constant time) and the loopback rule for binding. It never reads a body.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Host names that always mean this machine. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** True for localhost, 127.0.0.0/8 and ::1 (with or without brackets). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h.endsWith('.localhost');
}

/** The host name of a Host header value ("a:1" → "a", "[::1]:3" → "[::1]"); null when malformed. */
export function hostName(value: string): string | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/@]+)(?::\d{1,5})?$/.exec(value.trim());
  return m ? m[1]!.toLowerCase() : null;
}

export interface Gate {
  /** The bind address: when it is not loopback, the token (or --insecure-no-auth) is the guard and any Host is accepted. */
  bindHost: string;
  /** Extra origins (scheme://host[:port]) from http.allowed_origins. */
  allowedOrigins: readonly string[];
  token: string | null;
}

export interface Refusal { status: number; message: string; headers?: Record<string, string> }

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** What a gate implies, worked out once per gate rather than per request. */
const compiled = new WeakMap<Gate, { hosts: Set<string>; loopbackBind: boolean; tokenDigest: Buffer | null }>();
function compile(gate: Gate): { hosts: Set<string>; loopbackBind: boolean; tokenDigest: Buffer | null } {
  let c = compiled.get(gate);
  if (!c) {
    const hosts = new Set(gate.allowedOrigins.map((o) => { try { return new URL(o).hostname.toLowerCase(); } catch { return ''; } }));
    c = { hosts, loopbackBind: isLoopback(gate.bindHost), tokenDigest: gate.token === null ? null : digest(gate.token) };
    compiled.set(gate, c);
  }
  return c;
}

/** Checks one request's Host, Origin and token (not on a CORS preflight, which carries none); null when it may proceed. */
export function checkRequest(headers: IncomingHttpHeaders, gate: Gate, preflight = false): Refusal | null {
  const { hosts: allowedHosts, loopbackBind, tokenDigest } = compile(gate);
  const host = typeof headers.host === 'string' ? hostName(headers.host) : null;
  if (host === null) return { status: 400, message: 'missing or malformed Host header' };
  if (loopbackBind && !isLoopback(host) && !allowedHosts.has(host)) {
    return { status: 403, message: `Host ${JSON.stringify(headers.host)} is not this server (DNS rebinding protection); add its origin to http.allowed_origins` };
  }
  const origin = headers.origin;
  if (typeof origin === 'string' && origin !== '') {
    let name: string | null = null;
    try { name = new URL(origin).hostname.toLowerCase(); } catch { /* malformed: refused below */ }
    const listed = gate.allowedOrigins.includes(origin.replace(/\/$/, ''));
    if (!listed && (name === null || !(isLoopback(name) || isLoopback(`[${name}]`)))) {
      return { status: 403, message: `Origin ${JSON.stringify(origin)} is not allowed; add it to http.allowed_origins` };
    }
  }
  if (tokenDigest !== null && !preflight) {
    const auth = headers.authorization;
    const given = typeof auth === 'string' && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, '').trim() : null;
    // Digests have equal length whatever was sent, so the comparison time says nothing about the token.
    // No token: 401 with the challenge, as HTTP asks. A token that is wrong: 403 without one. MCP
    // clients read a 401 challenge as "start OAuth" (the Inspector then talks about authorization
    // servers); a wrong static token is a configuration mistake that OAuth cannot fix.
    if (given === null) {
      return { status: 401, message: 'this server needs "Authorization: Bearer <token>" (http.token, ROO_MODES_HTTP_TOKEN)', headers: { 'www-authenticate': 'Bearer' } };
    }
    if (!timingSafeEqual(digest(given), tokenDigest)) {
      return { status: 403, message: 'wrong bearer token: the Authorization header is not this server\'s http.token (ROO_MODES_HTTP_TOKEN); check the token the client sends' };
    }
  }
  return null;
}

/** Why binding `host` is refused, or null: a non-loopback address needs a token unless explicitly waived. */
export function bindProblem(host: string, token: string | null, insecureNoAuth: boolean): string | null {
  if (isLoopback(host) || token !== null || insecureNoAuth) return null;
  return `refusing to listen on ${host} without a token: anyone who can reach it could use the server. Set http.token (or ROO_MODES_HTTP_TOKEN), bind 127.0.0.1, or pass --insecure-no-auth`;
}
