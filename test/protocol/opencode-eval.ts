// A stand-in for OpenCode's permission check, written from its documented behaviour: rules in key
// order, the last match wins, a glob read either the older way (`*` = anything) or the newer
// (`*` = one segment, `**` = anything, `**/` = any leading folders). Tests feed exported rules to it.

export type Reading = 'older' | 'newer';
export type Action = 'allow' | 'deny' | 'ask';

const escape = (s: string): string => s.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/** The regex a glob stands for under one reading. */
export function globRegex(glob: string, reading: Reading): RegExp {
  let out = '';
  for (let i = 0; i < glob.length;) {
    if (reading === 'newer' && glob.startsWith('**/', i)) { out += '(?:.+/)?'; i += 3; continue; }
    if (glob.startsWith('**', i)) { out += reading === 'newer' ? '.*' : '.*.*'; i += 2; continue; }
    const ch = glob[i]!;
    if (ch === '*') out += reading === 'newer' ? '[^/]*' : '.*';
    else if (ch === '?') out += reading === 'newer' ? '[^/]' : '.';
    else out += escape(ch);
    i++;
  }
  return new RegExp(`^${out}$`, 's');
}

/** One permission's value as OpenCode reads it: an action, or pattern → action in order. */
export type PermissionValue = Action | Record<string, Action>;

/** Flattens a permission object into rules in order, as OpenCode does. */
export function rulesOf(permission: Record<string, PermissionValue>): { permission: string; pattern: string; action: Action }[] {
  return Object.entries(permission).flatMap(([key, value]) => typeof value === 'string'
    ? [{ permission: key, pattern: '*', action: value }]
    : Object.entries(value).map(([pattern, action]) => ({ permission: key, pattern, action })));
}

/**
 * The action for `permission` on `target` (a project-relative path, or a command): the last rule
 * whose permission and pattern both match, else `fallback` (OpenCode's own defaults).
 */
export function evaluate(permission: Record<string, PermissionValue>, key: string, target: string, reading: Reading, fallback: Action = 'allow'): Action {
  const rules = rulesOf(permission);
  for (let i = rules.length - 1; i >= 0; i--) {
    const r = rules[i]!;
    if (globRegex(r.permission, reading).test(key) && globRegex(r.pattern, reading).test(target)) return r.action;
  }
  return fallback;
}

/** An edit as OpenCode checks it: outside the project, external_directory first; then edit. */
export function editDecision(permission: Record<string, PermissionValue>, path: string, reading: Reading): Action {
  if (path.startsWith('../') || path.startsWith('/')) {
    const outside = evaluate(permission, 'external_directory', path, reading, 'ask');
    if (outside !== 'allow') return outside;
  }
  return evaluate(permission, 'edit', path, reading);
}
