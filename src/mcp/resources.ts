// Modes as MCP resources: mode://{slug}, mode://{slug}/config, mode://{slug}/system_prompt.
// Reads the URI grammar and the catalogue, never changes either; the subscription set is McpServer's.
import { ValidationError, quoteName } from '../rpc/errors.js';
import type { Params } from '../rpc/jsonrpc.js';
import type { Catalogue } from '../modes/catalogue.js';
import { modeNotFound } from '../modes/problems.js';
import type { CompiledMode } from '../modes/permissions.js';
import { describeToolGroups } from '../modes/describe.js';
import { paginate } from './pagination.js';
import { toolGroupsObject } from './reports.js';
import { atLeast } from './lifecycle.js';
import { resourceError } from './eras.js';
import { KINDS, URI } from './mode-uris.js';
import { VIEW_URI, viewContents, viewResource } from './apps.js';

export interface ResourceDeps {
  catalogue(): Catalogue;
  systemPrompt(mode: CompiledMode): Promise<string>;
  pageSize: number;
  protocolVersion(): string;
  /** The connection speaks 2026-07-28, where a missing resource is -32602 with data.uri. */
  stateless(): boolean;
}

export class ModeResources {
  readonly #d: ResourceDeps;
  #listed: { cat: Catalogue; version: string; apps: boolean; items: unknown[] } | null = null;
  /** The built view page, read on its first read (it never changes while the server runs). */
  #page: Promise<string> | null = null;

  constructor(d: ResourceDeps) { this.#d = d; }

  /** `apps`: the client offers MCP Apps, so the modes view is listed too (last, after the modes). */
  list(params: Params, apps = false): unknown {
    const page = paginate(this.#all(apps), params.cursor, this.#d.pageSize);
    return page.nextCursor === undefined ? { resources: page.items } : { resources: page.items, nextCursor: page.nextCursor };
  }

  /** Every resource of the catalogue in force, built once per catalogue and revision (pages slice it). */
  #all(apps: boolean): unknown[] {
    const cat = this.#d.catalogue();
    const version = this.#d.protocolVersion();
    if (this.#listed?.cat === cat && this.#listed.version === version && this.#listed.apps === apps) return this.#listed.items;
    const items: unknown[] = cat.modes.flatMap((m) => KINDS.map((k) => ({
      uri: `mode://${m.slug}${k.suffix}`,
      name: `${m.slug}${k.nameSuffix}`,
      ...(atLeast(version, '2025-06-18') ? { title: `${m.name}${k.label}` } : {}),
      description: k.suffix === '' ? (m.description ?? m.whenToUse ?? k.about) : `${k.about} of ${m.slug}`,
      mimeType: k.mimeType,
    })));
    if (apps) items.push(viewResource(atLeast(version, '2025-06-18')));
    this.#listed = { cat, version, apps, items };
    return items;
  }

  templates(params: Params): unknown {
    const titled = atLeast(this.#d.protocolVersion(), '2025-06-18');
    const all = KINDS.map((k) => ({
      uriTemplate: `mode://{slug}${k.suffix}`, name: k.templateName, ...(titled ? { title: k.template } : {}),
      description: `${k.about}, by mode slug`, mimeType: k.mimeType,
    }));
    const page = paginate(all, params.cursor, this.#d.pageSize);
    return page.nextCursor === undefined ? { resourceTemplates: page.items } : { resourceTemplates: page.items, nextCursor: page.nextCursor };
  }

  /** `apps`: the client offers MCP Apps, so the view can be read; to others its URI is as unknown as any. */
  async read(params: Params, apps = false): Promise<unknown> {
    if (apps && params.uri === VIEW_URI) {
      this.#page ??= import('../app/page.js').then(({ readViewPage }) => readViewPage());
      return viewContents(await this.#page);
    }
    const { mode, kind, uri } = this.#resolve(params.uri);
    let text: string;
    if (kind.suffix === '') text = JSON.stringify(fullMode(mode), null, 2);
    else if (kind.suffix === '/config') {
      // The mode as a .roomodes entry holds it (Roo's keys, absent ones left out), so it pastes back
      // into a file; the writer's own shape, loaded only for this read. `source` is what the file
      // says, else what Roo's loader gives every mode: "project" from .roomodes, "global" otherwise.
      const { modeToPlain } = await import('../authoring/mode-file-edit.js');
      const source = mode.declaredSource ?? (mode.source === 'project' ? 'project' : 'global');
      text = JSON.stringify(modeToPlain(mode, { source }), null, 2);
    }
    else text = await this.#d.systemPrompt(mode);
    return { contents: [{ uri, mimeType: kind.mimeType, text }] };
  }

  /** The URI resources/subscribe names, checked against the grammar (its mode need not exist yet). */
  subscription(params: Params): string {
    return this.#resolve(params.uri, false).uri;
  }

  #resolve(raw: unknown, mustExist = true): { mode: CompiledMode; kind: (typeof KINDS)[number]; uri: string } {
    if (typeof raw !== 'string') throw new ValidationError('resources/read needs a "uri" string', { message: 'params.uri: expected string' });
    const shown = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
    const m = URI.exec(raw);
    const kind = m ? KINDS.find((k) => k.suffix === (m[2] ?? '')) : undefined;
    if (!m || !kind) {
      throw resourceError(this.#d.stateless(), raw, new ValidationError(`Invalid resource URI ${quoteName(raw)}: expected mode://{slug}, mode://{slug}/config or mode://{slug}/system_prompt`, {
        message: 'expected mode://{slug}, mode://{slug}/config or mode://{slug}/system_prompt', uri: shown,
      }));
    }
    const cat = this.#d.catalogue();
    const mode = cat.get(m[1]!);
    if (!mode) {
      if (!mustExist) return { mode: undefined as never, kind, uri: raw };
      throw resourceError(this.#d.stateless(), raw, modeNotFound(cat, m[1]!));
    }
    return { mode, kind, uri: raw };
  }
}

/** True for a URI of this server's grammar (whether or not its mode exists). */
function fullMode(m: CompiledMode): Record<string, unknown> {
  return {
    slug: m.slug, name: m.name, source: m.source, ...(m.file ? { file: m.file } : {}),
    description: m.description ?? null, when_to_use: m.whenToUse ?? null,
    role_definition: m.roleDefinition, custom_instructions: m.customInstructions ?? null,
    tool_groups: toolGroupsObject(describeToolGroups(m)),
    ...dialectFields(m),
  };
}

/** Zoo's and Kilo's extra fields, only when the mode has them. */
function dialectFields(m: CompiledMode): Record<string, unknown> {
  return {
    ...(m.allowedMcpServers !== undefined ? { allowedMcpServers: m.allowedMcpServers } : {}),
    ...(m.iconName !== undefined ? { iconName: m.iconName } : {}),
    ...(m.declaredSource !== undefined ? { declared_source: m.declaredSource } : {}),
  };
}

