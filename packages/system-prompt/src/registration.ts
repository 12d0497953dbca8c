import { isVariableName } from './interpolate.js'
import type { StoredContext, StoredSection } from './layer.js'
import type { ToolProvider, VariableProvider } from './types.js'

/** Reads a property of a possibly non-object registration argument without throwing a raw `TypeError`. */
function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined
}

/**
 * Validates a `section()` / `context()` argument and returns its shallow copy.
 *
 * Checks, in order: non-empty string name, finite numeric order, string-or-function text. Messages use `kind`
 * ("section" or "context"). Runs before any table change, so a failed registration leaves nothing behind.
 * Only `complete === true` counts as complete (and contexts never are).
 */
export function copyEntry(kind: 'section', value: unknown): StoredSection
export function copyEntry(kind: 'context', value: unknown): StoredContext
export function copyEntry(kind: 'section' | 'context', value: unknown): StoredSection | StoredContext {
  const name = field(value, 'name')
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`prompt ${kind} name must be a non-empty string`)
  }
  const order = field(value, 'order')
  if (typeof order !== 'number' || !Number.isFinite(order)) {
    throw new TypeError(`prompt ${kind} "${name}" order must be a finite number`)
  }
  const text = field(value, 'text')
  if (typeof text !== 'string' && typeof text !== 'function') {
    throw new TypeError(`prompt ${kind} "${name}" text must be a string or a function`)
  }
  const source = text as StoredSection['text']
  if (kind === 'context') return { name, order, text: source }
  return { name, order, text: source, complete: field(value, 'complete') === true }
}

/** Validates a `variable(name, provider)` call: grammar-conforming string name, then a function provider. */
export function checkVariable(name: unknown, provider: unknown): asserts provider is VariableProvider {
  if (!isVariableName(name)) {
    throw new Error(`invalid prompt variable name "${String(name)}" (must match /^[a-z][a-z0-9_]*$/)`)
  }
  if (typeof provider !== 'function') {
    throw new TypeError(`prompt variable "${name}" provider must be a function`)
  }
}

/** Validates a `tools(provider)` call: the provider must be a function; nothing else is checked here. */
export function checkToolProvider(provider: unknown): asserts provider is ToolProvider {
  if (typeof provider !== 'function') throw new TypeError('prompt tool provider must be a function')
}
