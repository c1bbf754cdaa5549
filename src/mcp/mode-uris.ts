// The mode:// URI scheme: the three resources of each mode, how a URI is read, and which
// subscribed URIs a catalogue change touches. Pure data and functions; loads nothing else.

/**
 * The three resource kinds of each mode. One table. `name` parts are programmatic (ASCII, no
 * spaces: a slug has no "_", so `<slug><nameSuffix>` is unique); `label` and `template` are the
 * human titles, sent as `title` where the revision has it (2025-06-18 on).
 */
export const KINDS = [
  { suffix: '', nameSuffix: '', label: '', mimeType: 'application/json', templateName: 'mode', template: 'Mode', about: 'Full mode definition with tool groups and restrictions' },
  { suffix: '/config', nameSuffix: '_config', label: ' - Configuration', mimeType: 'application/json', templateName: 'mode_config', template: 'Mode configuration', about: 'Mode configuration as a .roomodes entry (Roo Code keys)' },
  { suffix: '/system_prompt', nameSuffix: '_system_prompt', label: ' - System Prompt', mimeType: 'text/plain', templateName: 'mode_system_prompt', template: 'Mode system prompt', about: 'Composed system prompt' },
] as const;

export const URI = /^mode:\/\/([a-zA-Z0-9-]+)(\/[a-z_]+)?$/;

export const isModeUri = (uri: string): boolean => {
  const m = URI.exec(uri);
  return m !== null && KINDS.some((k) => k.suffix === (m[2] ?? ''));
};

/** Of `uris`, those whose content changed: the changed slugs' resources, and every system prompt
 * (a prompt lists the other modes, so any change to the catalogue may change its text; and
 * `promptsChanged` says a file every prompt reads, such as AGENTS.md, changed). */
export function affectedUris(uris: Iterable<string>, slugs: readonly string[], listChanged: boolean, promptsChanged = false): string[] {
  const set = new Set(slugs);
  const anyChange = listChanged || slugs.length > 0 || promptsChanged;
  return [...uris].filter((uri) => {
    const m = URI.exec(uri);
    return m !== null && (set.has(m[1]!) || (anyChange && m[2] === '/system_prompt'));
  });
}

