// Reads a redis:// or rediss:// URL into the address, credentials, database and TLS choice, and hides
// its credentials for messages. It never connects, and its errors never repeat the password.
import { RedisUrlError } from './errors.js';

export interface RedisTarget {
  tls: boolean;
  /** Host name or IP address (IPv6 without brackets). */
  host: string;
  port: number;
  /** ACL user; absent means AUTH with the password alone (the `default` user). */
  username?: string;
  password?: string;
  /** Database number selected on every (re)connect. */
  db: number;
  /** host:port as messages show it (no credentials). */
  address: string;
}

const DEFAULT_PORT = 6379;

/** Parses `redis://[user:pass@]host[:port][/db]` (and rediss://); throws RedisUrlError saying what is wrong. */
export function parseRedisUrl(url: string): RedisTarget {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  if (!scheme) throw new RedisUrlError('it does not start with a scheme and "//"');
  const name = scheme[1]!.toLowerCase();
  if (name !== 'redis' && name !== 'rediss') throw new RedisUrlError(`the scheme is "${name}:"`);
  const rest = url.slice(scheme[0].length);
  if (/[?#]/.test(rest)) throw new RedisUrlError('a query or fragment ("?" or "#") is not supported; put the database in the path');
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash);

  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? null : authority.slice(0, at);
  const hostport = authority.slice(at + 1);
  const target: RedisTarget = { tls: name === 'rediss', host: '', port: DEFAULT_PORT, db: 0, address: '' };

  if (userinfo !== null) {
    const colon = userinfo.indexOf(':');
    if (colon === -1) throw new RedisUrlError('a user name needs a password ("user:pass@"); for a password alone write ":pass@"');
    const user = decode(userinfo.slice(0, colon), 'user name');
    const password = decode(userinfo.slice(colon + 1), 'password');
    if (password === '') throw new RedisUrlError('the password is empty');
    if (user !== '') target.username = user;
    target.password = password;
  }

  let portText: string | null = null;
  if (hostport.startsWith('[')) {
    const close = hostport.indexOf(']');
    if (close === -1) throw new RedisUrlError('the IPv6 address has no closing "]"');
    target.host = hostport.slice(1, close);
    const after = hostport.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw new RedisUrlError(`unexpected "${after}" after the IPv6 address`);
    if (after !== '') portText = after.slice(1);
  } else {
    const colon = hostport.lastIndexOf(':');
    target.host = colon === -1 ? hostport : hostport.slice(0, colon);
    if (colon !== -1) portText = hostport.slice(colon + 1);
  }
  if (target.host === '') throw new RedisUrlError('the host is missing');
  if (/[\s/@[\]]/.test(target.host)) throw new RedisUrlError(`the host "${target.host}" has a character a host cannot have`);
  if (portText !== null) {
    const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (!(port >= 1 && port <= 65535)) throw new RedisUrlError(`the port "${portText}" is not a number from 1 to 65535`);
    target.port = port;
  }

  if (path !== '' && path !== '/') {
    const db = /^\/\d{1,9}$/.test(path) ? Number(path.slice(1)) : NaN;
    if (Number.isNaN(db)) throw new RedisUrlError(`the path "${path}" is not a database number ("/0", "/1", …)`);
    target.db = db;
  }
  target.address = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  return target;
}

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new RedisUrlError(`the ${what} has a malformed percent-escape`);
  }
}

/** A URL with its password (and user) hidden, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/)[^@/]*@/i, '$1***@');
}
