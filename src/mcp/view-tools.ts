// The tools only the modes view calls (MCP Apps, visibility "app"): the matrix it draws, and a path
// tried in a mode, decided by decideToolUse as validate_tool_use decides it. Never changes a thing.
import type { Catalogue } from '../modes/catalogue.js';
import type { PermissionContext } from '../modes/permissions.js';
import { modeNotFound } from '../modes/problems.js';
import { decideToolUse } from '../modes/decide-tool-use.js';
import { buildViewData, matrixText, type MatrixPlace } from '../app/matrix.js';
import type { ViewVerdict } from '../app/view-data.js';
import type { ToolResult, ToolTable } from './tool-types.js';

export interface ViewToolDeps {
  catalogue(): Catalogue;
  permissionContext(): PermissionContext;
  place(): MatrixPlace;
}

/** The tool a path is tried with: writing a file, the one act a mode's file pattern restricts. */
const TRIED_TOOL = 'write_to_file';

function modeMatrix(d: ViewToolDeps): ToolResult {
  const data = buildViewData(d.catalogue(), d.place());
  return { text: matrixText(data), metadata: data as unknown as Record<string, unknown> };
}

function tryModePath(d: ViewToolDeps, args: Record<string, unknown>): ToolResult {
  const cat = d.catalogue();
  const slug = args.mode_slug as string;
  const mode = cat.get(slug);
  if (!mode) throw modeNotFound(cat, slug);
  const filePath = args.file_path as string;
  const decision = decideToolUse(mode, TRIED_TOOL, { file_path: filePath }, d.permissionContext());
  const verdict: ViewVerdict = { allowed: decision.allowed, mode: mode.slug, file_path: filePath, reason: decision.reason };
  const text = `${decision.allowed ? '✓' : '✗'} ${mode.name} (${mode.slug}) ${decision.allowed ? 'may' : 'may not'} edit ${filePath}\n${decision.reason}`;
  return { text, metadata: verdict as unknown as Record<string, unknown> };
}

export const VIEW_TOOLS = {
  mode_matrix: modeMatrix,
  try_mode_path: tryModePath,
} satisfies ToolTable<ViewToolDeps>;
