/** A path parameter's rule: a segment that fails it means the route does not match. */
export type ParamRule = (segment: string) => boolean;

export type Params = Record<string, string>;

/** `route` is the path template in OpenAPI's spelling (`/api/users/{id}`): the same for every id. */
export type Match<H> =
  | { kind: 'found'; handler: H; params: Params; route: string }
  | { kind: 'method-not-allowed'; allow: string; route: string }
  | { kind: 'not-found' };

export interface PathInfo {
  /** The methods served at the path, for Allow and CORS preflights. */
  allow: string;
  route: string;
}

interface PathEntry<H> extends PathInfo {
  handlers: Map<string, H>;
}

interface PatternEntry<H> extends PathEntry<H> {
  segments: ReadonlyArray<{ literal: string } | { param: string; rule: ParamRule }>;
}

const NOT_FOUND = { kind: 'not-found' } as const;

/**
 * Routes compiled once at start-up: exact paths live in a map checked first, patterns with
 * parameters are matched segment by segment. HEAD is served by the GET handler.
 */
export class Router<H> {
  private readonly exact = new Map<string, PathEntry<H>>();
  private readonly patterns: PatternEntry<H>[] = [];

  add(method: string, path: string, handler: H, rules: Record<string, ParamRule> = {}): this {
    const entry = path.includes('/:') ? this.patternEntry(path, rules) : this.exactEntry(path);
    entry.handlers.set(method, handler);
    entry.allow = allowHeader(entry.handlers);
    return this;
  }

  match(method: string, path: string): Match<H> {
    const exact = this.exact.get(path);
    if (exact) return pick(exact, method, {});
    for (const pattern of this.patterns) {
      const params = matchSegments(pattern, path);
      if (params) return pick(pattern, method, params);
    }
    return NOT_FOUND;
  }

  /** The methods and template of the route a path matches, or undefined when none does. */
  lookup(path: string): PathInfo | undefined {
    const exact = this.exact.get(path);
    if (exact) return exact;
    return this.patterns.find((pattern) => matchSegments(pattern, path));
  }

  /** Every registered route, exact paths first, in registration order (HEAD is implied by GET). */
  routes(): Array<{ method: string; path: string }> {
    const listed: Array<{ method: string; path: string }> = [];
    for (const [path, entry] of this.exact) for (const method of entry.handlers.keys()) listed.push({ method, path });
    for (const pattern of this.patterns) {
      for (const method of pattern.handlers.keys()) listed.push({ method, path: patternPath(pattern) });
    }
    return listed;
  }

  private exactEntry(path: string): PathEntry<H> {
    let entry = this.exact.get(path);
    if (!entry) this.exact.set(path, (entry = { handlers: new Map(), allow: '', route: path }));
    return entry;
  }

  private patternEntry(path: string, rules: Record<string, ParamRule>): PatternEntry<H> {
    const existing = this.patterns.find((pattern) => patternPath(pattern) === path);
    if (existing) return existing;
    const segments = path.split('/').map((segment) => {
      if (!segment.startsWith(':')) return { literal: segment };
      const param = segment.slice(1);
      return { param, rule: rules[param] ?? ((value: string) => value !== '') };
    });
    const route = segments.map((segment) => ('literal' in segment ? segment.literal : `{${segment.param}}`)).join('/');
    const entry: PatternEntry<H> = { segments, handlers: new Map(), allow: '', route };
    this.patterns.push(entry);
    return entry;
  }
}

function pick<H>(entry: PathEntry<H>, method: string, params: Params): Match<H> {
  const handler = entry.handlers.get(method) ?? (method === 'HEAD' ? entry.handlers.get('GET') : undefined);
  return handler
    ? { kind: 'found', handler, params, route: entry.route }
    : { kind: 'method-not-allowed', allow: entry.allow, route: entry.route };
}

function matchSegments<H>(pattern: PatternEntry<H>, path: string): Params | undefined {
  const parts = path.split('/');
  if (parts.length !== pattern.segments.length) return undefined;
  const params: Params = {};
  for (let i = 0; i < parts.length; i++) {
    const segment = pattern.segments[i]!;
    const part = parts[i]!;
    if ('literal' in segment) {
      if (segment.literal !== part) return undefined;
    } else {
      if (!segment.rule(part)) return undefined;
      params[segment.param] = part;
    }
  }
  return params;
}

function patternPath<H>(pattern: PatternEntry<H>): string {
  return pattern.segments.map((segment) => ('literal' in segment ? segment.literal : `:${segment.param}`)).join('/');
}

function allowHeader(handlers: Map<string, unknown>): string {
  const methods = [...handlers.keys()];
  if (handlers.has('GET') && !handlers.has('HEAD')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  methods.push('OPTIONS');
  return methods.join(', ');
}
