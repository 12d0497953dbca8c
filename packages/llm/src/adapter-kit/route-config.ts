/**
 * A route's config as a whole: the shared fields (route-fields.ts) in their order, the adapter's own after them, the
 * cross-field rules, and the defaults that depend on whether the route calls its provider's own API. Each adapter's
 * `config.ts` adds only its wire-specific fields, so both refuse, default and word the shared ones the same.
 */
import { z } from 'zod'
import { parseConfig, type ConfigSchemaLike } from '../config.js'
import { deepFreeze } from '../freeze.js'
import type { JsonValue } from '../ids.js'
import {
  baseUrlField,
  callBoundsOf,
  callBoundsShape,
  catalogModelShape,
  envVarNameField,
  extraBodyField,
  headersField,
  nonEmptyString,
  routeNameField,
  type CallBoundsConfig,
} from './route-fields.js'

/** Whether a route may call keyless servers: `apiKeyEnv` is then a variable name or `null`. */
export type KeyVariable = 'name' | 'name-or-null'

type ApiKeyEnvField<N extends KeyVariable> = N extends 'name-or-null'
  ? z.ZodOptional<z.ZodNullable<z.ZodString>>
  : z.ZodOptional<z.ZodString>

function apiKeyEnvField<N extends KeyVariable>(kind: N): ApiKeyEnvField<N> {
  const name = envVarNameField()
  return (kind === 'name-or-null' ? name.nullable().optional() : name.optional()) as ApiKeyEnvField<N>
}

/** What `routeSchema` builds a route's config from. */
export interface RouteSchemaOptions<N extends KeyVariable, M extends z.ZodType> {
  /** The route name when the config gives none (`deepseek`, `anthropic`). */
  provider: string
  /** Which query strings `baseURL` may carry (`baseUrlField`). */
  query: 'no-credentials' | 'none'
  /** What `apiKeyEnv` may be. */
  apiKeyEnv: N
  /** What to give when `baseURL` is set without `apiKeyEnv` (the refusal says it). */
  apiKeyHint: string
  /** The schema of one catalog row. */
  model: M
  /** Header names the adapter sets itself. */
  forbiddenHeaders: readonly string[]
  /** Body keys the adapter sets itself. */
  reservedBodyKeys: readonly string[]
}

/**
 * The fields every route's config has, in order: `provider`, `displayName`, `baseURL`, `apiKeyEnv`, `models`, the
 * bounds, `headers`, `extraBody`.
 */
export function routeShape<N extends KeyVariable, M extends z.ZodType>(options: RouteSchemaOptions<N, M>) {
  return {
    provider: routeNameField(options.provider),
    displayName: nonEmptyString.optional(),
    // the messages never repeat the value: it may hold the secret
    baseURL: baseUrlField(options.query).optional(),
    apiKeyEnv: apiKeyEnvField(options.apiKeyEnv),
    models: z.array(options.model).optional(),
    ...callBoundsShape(),
    headers: headersField(options.forbiddenHeaders),
    extraBody: extraBodyField(options.reservedBodyKeys).default({}),
  }
}

/**
 * The strict schema of a route's config: the shared fields (`routeShape`), then the adapter's own (`extra`), and the
 * cross-field rules (`checkRoute`).
 */
export function routeSchema<N extends KeyVariable, M extends z.ZodType, X extends z.ZodRawShape>(
  options: RouteSchemaOptions<N, M>,
  extra: X,
) {
  return z
    .object({ ...routeShape(options), ...extra })
    .strict()
    .superRefine((config, ctx) => checkRoute(config as RouteFacts, ctx, options.apiKeyHint))
}

/**
 * A catalog row's strict schema: the fields every route's rows have (`catalogModelShape`), then the adapter's own.
 */
export function catalogModel<X extends z.ZodRawShape>(reservedBodyKeys: readonly string[], extra: X) {
  return z.object({ ...catalogModelShape(reservedBodyKeys), ...extra }).strict()
}

/** A route's config as `routeShape` parsed it. */
export interface ParsedRoute<K, M> extends CallBoundsConfig {
  provider: string
  displayName?: string | undefined
  baseURL?: string | undefined
  apiKeyEnv?: K | undefined
  models?: M[] | undefined
  headers: Record<string, string>
  extraBody: Record<string, unknown>
}

/** Where a route calls when its config names no `baseURL`: the provider's own API, and what goes with it. */
export interface HomeRoute<K, M> {
  displayName: string
  baseURL: string
  apiKeyEnv: K
  /** The catalog at home, and (by default none) when another `baseURL` is given. */
  models: readonly M[]
  modelsElsewhere?: readonly M[]
}

/** The resolved fields every route has. */
export interface ResolvedRoute<K, M> extends CallBoundsConfig {
  readonly provider: string
  readonly displayName: string
  readonly baseURL: string
  readonly apiKeyEnv: K
  readonly models: readonly M[]
  readonly headers: Readonly<Record<string, string>>
  readonly extraBody: Readonly<Record<string, JsonValue>>
}

/**
 * The route's fields with their defaults: without a `baseURL` the route calls `home` (its URL, its key variable, its
 * display name and catalog); with one, `displayName` defaults to the route name and the catalog to
 * `home.modelsElsewhere` (`[]`).
 */
export function resolveRoute<K, M>(parsed: ParsedRoute<K, M>, home: HomeRoute<K, M>): ResolvedRoute<K, M> {
  const atHome = parsed.baseURL === undefined
  return {
    provider: parsed.provider,
    displayName: parsed.displayName ?? (atHome ? home.displayName : parsed.provider),
    baseURL: parsed.baseURL ?? home.baseURL,
    apiKeyEnv: parsed.apiKeyEnv === undefined ? home.apiKeyEnv : parsed.apiKeyEnv,
    models: parsed.models ?? structuredClone(atHome ? home.models : (home.modelsElsewhere ?? [])),
    ...callBoundsOf(parsed),
    headers: parsed.headers,
    extraBody: parsed.extraBody as Record<string, JsonValue>,
  }
}

/**
 * Parses a route's raw config with its `schema` (throwing `ConfigError` naming `pluginName` and each failing field),
 * applies the route defaults (`resolveRoute` with `home`) and the adapter's own (`own`), and deep-freezes the result.
 * Pure: the body of every route's `resolveConfig`.
 */
export function parseRoute<K, M, P extends ParsedRoute<K, M>, X extends object>(
  pluginName: string,
  schema: ConfigSchemaLike<P>,
  raw: unknown,
  home: HomeRoute<K, M>,
  own: (parsed: P) => X,
): ResolvedRoute<K, M> & X {
  const parsed = parseConfig(pluginName, schema, raw)
  return deepFreeze({ ...resolveRoute(parsed, home), ...own(parsed) })
}

/** What the cross-field rules read of a route's config. */
interface RouteFacts {
  baseURL?: string | undefined
  apiKeyEnv?: unknown
  models?: readonly { id: string }[] | undefined
}

/**
 * The cross-field rules of a route: a `baseURL` without an explicit `apiKeyEnv` is refused (so a default provider's
 * key is never sent to a URL the operator typed; `apiKeyHint` says what to give), and model ids are unique.
 */
export function checkRoute(config: RouteFacts, ctx: z.RefinementCtx, apiKeyHint: string): void {
  if (config.baseURL !== undefined && config.apiKeyEnv === undefined) {
    ctx.addIssue({ code: 'custom', path: ['apiKeyEnv'], message: `required when baseURL is given (${apiKeyHint})` })
  }
  const ids = new Set<string>()
  config.models?.forEach((model, i) => {
    if (ids.has(model.id)) {
      ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: `duplicate model id "${model.id}"` })
    }
    ids.add(model.id)
  })
}
