// The host's look applied to the page: light or dark, and the host's CSS variables (the extension's
// standard names, which style.css reads with fallbacks of its own). Touches only the root element.

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A CSS custom property name, and a value that cannot end the declaration it is set in. */
const VARIABLE = /^--[a-zA-Z0-9-]{1,80}$/;
const SAFE_VALUE = /^[^;{}<>]{0,400}$/;

/** Applies what a host context (ui/initialize's, or a host-context-changed update) says of the look. */
export function applyHostContext(context: unknown): void {
  if (!isRecord(context)) return;
  const root = document.documentElement;
  if (context.theme === 'light' || context.theme === 'dark') root.dataset.theme = context.theme;
  const styles = isRecord(context.styles) ? context.styles : {};
  const variables = isRecord(styles.variables) ? styles.variables : {};
  for (const [name, value] of Object.entries(variables)) {
    if (!VARIABLE.test(name)) continue;
    if (typeof value === 'string' && SAFE_VALUE.test(value)) root.style.setProperty(name, value);
    else if (value === undefined || value === null) root.style.removeProperty(name);
  }
}
