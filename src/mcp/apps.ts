// The MCP Apps extension (io.modelcontextprotocol/ui) as this server offers it: the facts (id, MIME
// type, the view's URI, which tools show it), whether a client offers it, and what it adds. No state.
import { isRecord } from '../rpc/jsonrpc.js';

/** The extension's identifier, under `capabilities.extensions` (and per request in 2026-07-28). */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/** The one content type the extension's views have (2026-01-26). */
export const VIEW_MIME = 'text/html;profile=mcp-app';

/** The view: every mode's powers, with a box to try a path. */
export const VIEW_URI = 'ui://roo-modes/modes';

/**
 * The tools that name the view, and who may call each: `model` tools are the seed's own (the host
 * renders their result in the view); `app` tools exist for the view alone (hosts keep them from the
 * model, and a client without the extension is never told of them). One table.
 */
export const VIEW_AUDIENCE: Readonly<Record<string, 'model' | 'app'>> = {
  list_modes: 'model',
  get_mode_info: 'model',
  mode_matrix: 'app',
  try_mode_path: 'app',
};

/** A tool that exists only for the view. */
export const appOnly = (name: string): boolean => VIEW_AUDIENCE[name] === 'app';

/**
 * True when the client's capabilities offer the extension with our content type. The settings'
 * `mimeTypes` is required by the extension; a client that names other types only cannot show ours.
 */
export function offersApps(capabilities: Readonly<Record<string, unknown>>): boolean {
  const ext = capabilities.extensions;
  const ui = isRecord(ext) ? ext[UI_EXTENSION] : undefined;
  return isRecord(ui) && Array.isArray(ui.mimeTypes) && ui.mimeTypes.includes(VIEW_MIME);
}

/** What the server declares of the extension in its capabilities. */
export const UI_CAPABILITY = { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME] } } as const;

/**
 * A listed tool's `_meta` for a client with the extension: the view's URI, nested as the extension
 * says and under the flat key hosts released before it still read; `visibility` on app-only tools.
 */
export function toolMeta(name: string): Record<string, unknown> | undefined {
  const who = VIEW_AUDIENCE[name];
  if (who === undefined) return undefined;
  return { ui: who === 'app' ? { resourceUri: VIEW_URI, visibility: ['app'] } : { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI };
}

/** The view's entry in resources/list (`titled`: the revision has `title`). */
export function viewResource(titled: boolean): Record<string, unknown> {
  return {
    uri: VIEW_URI, name: 'modes_view', ...(titled ? { title: 'Modes and what each may do' } : {}),
    description: 'Every mode as a row, its tool groups as columns with their file patterns, the mode files\' problems, and a box to try a path in a mode (an MCP Apps view)',
    mimeType: VIEW_MIME,
  };
}

/** resources/read of the view: the page, and the host asked to draw a border (hosts' defaults differ). */
export function viewContents(html: string): Record<string, unknown> {
  return { contents: [{ uri: VIEW_URI, mimeType: VIEW_MIME, text: html, _meta: { ui: { prefersBorder: true } } }] };
}
