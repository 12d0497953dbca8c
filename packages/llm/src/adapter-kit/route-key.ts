/**
 * A route's key (docs/security.md#what-is-filtered): read from its environment variable at each call, never stored,
 * and added to the process's secret filter when a call reads it (the variable may have been set or rotated since the
 * route loaded, when `registerRoute` held it first).
 */
import { assertUsableApiKey } from '../credentials.js'
import { LlmError } from '../errors.js'
import { holdSecrets } from '../known-secrets.js'

/**
 * Reads the key now (not at load) from `process.env[name]` and adds it to the secret filter: `null` when keyless;
 * `MISSING_CREDENTIAL` naming the variable when it is unset or empty, `INVALID_CREDENTIAL` when it is not printable
 * ASCII (never the value).
 */
export function readRouteKey(name: string): string
export function readRouteKey(name: string | null): string | null
export function readRouteKey(name: string | null): string | null {
  if (name === null) return null
  const raw = process.env[name]
  if (raw === undefined || raw === '') {
    throw new LlmError(`no API key: environment variable ${name} is not set`, 'MISSING_CREDENTIAL')
  }
  const key = assertUsableApiKey(raw, name)
  holdSecrets(raw, key)
  return key
}

/** What an error message of the route must never show: the key the call sent and every configured header value. */
export function routeSecrets(key: string | null, headers: Readonly<Record<string, string>>): string[] {
  return [...(key === null ? [] : [key]), ...Object.values(headers)]
}
