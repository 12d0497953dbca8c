/**
 * Lossless JSON values (docs/session-events.md#the-envelope).
 *
 * Everything that enters a session log must survive `JSON.stringify` → `JSON.parse` unchanged, because the log is
 * the only source the model's history is rebuilt from. `snapshotJsonValue` validates and detaches a value in one
 * iterative pass; `isJsonValue` walks the same way without copying; `jsonValueViolation` says which value at which
 * path was wrong.
 */

import {
  jsonLimitViolation,
  jsonPath,
  jsonStringBytesBound,
  pathSegment,
  type JsonLimits,
  type JsonLimitViolation,
  type JsonValue,
} from '@bridle/llm'
import { isRealmArrayPrototype, isRealmObjectPrototype } from './realm-prototypes.js'

/** Why a value is not lossless JSON, and where (`$` is the root, then `.key` / `[index]` segments). */
export interface JsonViolation {
  readonly path: string
  readonly reason: string
}

const INDEX = /^(?:0|[1-9][0-9]*)$/

/**
 * What a walk does with the value: only check it, build a detached copy, or build a detached copy frozen as it is built
 * (`snapshotForLog`).
 */
type Mode = 'check' | 'copy' | 'log'

interface Frame {
  readonly source: object
  readonly target: Record<string, unknown> | unknown[] | undefined
  /** Own keys of a record, in order; `undefined` for an array (its indices are walked). */
  readonly keys: readonly string[] | undefined
  readonly length: number
  next: number
}

/** A rewrite of the strings of a copy (the secret filter): `apply` sees only strings of at least `minLength`. */
export interface TextFilter {
  readonly minLength: number
  apply(text: string): string
}

type WalkResult =
  | { ok: true; value: unknown }
  | { ok: false; violation: JsonViolation }
  | { ok: false; limit: JsonLimitViolation }

function describe(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'undefined'
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value)
    case 'bigint':
      return `BigInt ${String(value)}n`
    case 'function':
      return 'a function'
    case 'symbol':
      return 'a symbol'
    default:
      return typeof value
  }
}

/** The key of the property a frame is reading (the last one it advanced to), or `undefined` before the first. */
function currentKey(frame: Frame): string | undefined {
  if (frame.next === 0) return undefined
  return frame.keys === undefined ? String(frame.next - 1) : frame.keys[frame.next - 1]
}

function pathOf(stack: readonly Frame[], leafKey?: string): string {
  let path = '$'
  for (const frame of stack) {
    const key = currentKey(frame)
    if (key === undefined) continue
    path +=
      frame.keys === undefined ? `[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
  }
  if (leafKey !== undefined) path += leafKey
  return path
}

/** Classifies a container: its own string keys in order (`undefined` for an array) and length, or why it is not JSON. */
function inspectContainer(value: object): { keys: string[] | undefined; length: number } | { reason: string } {
  if (Array.isArray(value)) {
    const proto = Reflect.getPrototypeOf(value)
    if (proto === null || !isRealmArrayPrototype(proto))
      return { reason: 'an Array subclass or an array with a foreign prototype' }
    const length = value.length
    const own = Reflect.ownKeys(value)
    if (own.length !== length + 1) {
      return { reason: own.length < length + 1 ? 'a sparse array' : 'an array with extra own properties' }
    }
    for (const key of own) {
      if (typeof key !== 'string') return { reason: 'an array with a symbol-keyed property' }
      if (key === 'length') continue
      if (!INDEX.test(key) || Number(key) >= length)
        return { reason: `an array with extra own property ${JSON.stringify(key)}` }
    }
    return { keys: undefined, length }
  }
  const proto = Reflect.getPrototypeOf(value)
  if (proto !== null && !isRealmObjectPrototype(proto)) {
    return { reason: 'an object that is not a plain record (class instance, Map, Set, Date or foreign prototype)' }
  }
  // `Object.keys` lists the own enumerable string keys. When it is as long as the full own-key list there is no symbol
  // key and no non-enumerable property, and no property descriptor has to be read to know it.
  const keys = Object.keys(value)
  const own = Reflect.ownKeys(value)
  if (own.length !== keys.length) {
    for (const key of own) {
      if (typeof key !== 'string') return { reason: 'an object with a symbol-keyed property' }
      const desc = Reflect.getOwnPropertyDescriptor(value, key)
      if (desc && !desc.enumerable) return { reason: `an object with non-enumerable property ${JSON.stringify(key)}` }
    }
  }
  return { keys, length: keys.length }
}

function leafViolation(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      if (!Number.isFinite(value)) return `${describe(value)} is not a finite number`
      return Object.is(value, -0) ? '-0 does not survive JSON' : undefined
    case 'object':
      return undefined
    default:
      return `${describe(value)} is not a JSON value`
  }
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  else target[key] = value
}

/** Upper bound of a scalar's JSON size: strings by {@link jsonStringBytesBound}; numbers are at most 24 bytes. */
function scalarBound(value: unknown): number {
  return typeof value === 'string' ? jsonStringBytesBound(value) : 24
}

/**
 * The walk behind every export here. With `limits`, it also refuses depth past `limits.maxDepth` (stopping there,
 * so a 100,000-deep value costs only the first levels) and adds up an upper bound of the JSON size; only a value
 * whose bound passes `limits.maxBytes` is measured exactly, once the copy is made.
 */
function walk(root: unknown, mode: Mode, limits?: JsonLimits, text?: TextFilter): WalkResult {
  const rootReason = leafViolation(root)
  if (rootReason !== undefined) return { ok: false, violation: { path: '$', reason: rootReason } }
  if (root === null || typeof root !== 'object') {
    const leaf =
      text !== undefined && typeof root === 'string' && root.length >= text.minLength ? text.apply(root) : root
    if (limits !== undefined && scalarBound(leaf) > limits.maxBytes) return measured(leaf, limits)
    return { ok: true, value: leaf }
  }

  let bound = 2
  // strings shorter than this cannot hold what `text` replaces, and are never handed to it
  const minText = text === undefined ? Number.POSITIVE_INFINITY : text.minLength
  const stack: Frame[] = []
  const onPath = new Set<object>()
  const open = (source: object): { target: Frame['target'] } | JsonViolation => {
    if (onPath.has(source)) return { path: pathOf(stack), reason: 'a cycle' }
    const info = inspectContainer(source)
    if ('reason' in info) return { path: pathOf(stack), reason: info.reason }
    const target = mode === 'check' ? undefined : info.keys === undefined ? new Array<unknown>(info.length) : {}
    onPath.add(source)
    stack.push({ source, target, keys: info.keys, length: info.length, next: 0 })
    return { target }
  }

  const opened = open(root)
  if ('reason' in opened) return { ok: false, violation: opened }
  const rootTarget = opened.target

  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.next >= frame.length) {
      stack.pop()
      onPath.delete(frame.source)
      if (mode === 'log') Object.freeze(frame.target)
      continue
    }
    const index = frame.next++
    const keys = frame.keys
    const key = keys === undefined ? undefined : keys[index]!
    // One read per property: a data property's value, or one call of its getter.
    const value: unknown =
      key === undefined ? (frame.source as unknown[])[index] : (frame.source as Record<string, unknown>)[key]
    const reason = leafViolation(value)
    if (reason !== undefined) return { ok: false, violation: { path: pathOf(stack), reason } }
    // The copy's key and strings are what `text` makes of them (the secret filter for a log), and so is their size.
    const copyKey = key === undefined || key.length < minText ? key : text!.apply(key)
    if (limits !== undefined) bound += 1 + (copyKey === undefined ? 0 : jsonStringBytesBound(copyKey) + 1)
    let copy: unknown = value
    if (value === null || typeof value !== 'object') {
      if (typeof value === 'string' && value.length >= minText) copy = text!.apply(value)
      if (limits !== undefined) bound += scalarBound(copy)
    } else {
      if (limits !== undefined) {
        if (stack.length >= limits.maxDepth) {
          return { ok: false, limit: { kind: 'depth', path: limitPath(stack), limit: limits.maxDepth } }
        }
        bound += 2
      }
      const child = open(value)
      if ('reason' in child) return { ok: false, violation: child }
      copy = child.target
    }
    const target = frame.target
    if (target === undefined) continue
    if (copyKey === undefined) (target as unknown[])[index] = copy
    else define(target as Record<string, unknown>, copyKey, copy)
  }
  const value = mode === 'check' ? root : rootTarget
  if (limits !== undefined && bound > limits.maxBytes) return measured(value, limits)
  return { ok: true, value }
}

/** Measures a value whose size bound passed the limit exactly; the bound is loose, so it may still fit. */
function measured(value: unknown, limits: JsonLimits): WalkResult {
  const limit = jsonLimitViolation(value, limits)
  return limit === undefined ? { ok: true, value } : { ok: false, limit }
}

/** The path of the value being entered, shortened for a deep stack (see `jsonPath` of `@bridle/llm`). */
function limitPath(stack: readonly Frame[]): string {
  const segments: string[] = []
  for (const frame of stack) {
    const key = currentKey(frame)
    if (key !== undefined) segments.push(pathSegment(key, frame.keys === undefined))
  }
  return jsonPath('$', segments)
}

/**
 * Validates `value` as lossless JSON and returns a detached plain copy of this realm, or `undefined` when the value
 * is not lossless JSON. Each property is read exactly once (a getter's throw propagates); `toJSON` is ignored; shared
 * acyclic aliases are copied separately; there is no depth limit.
 */
export function snapshotJsonValue(value: unknown): JsonValue | undefined {
  const result = walk(value, 'copy')
  return result.ok ? (result.value as JsonValue) : undefined
}

/** The same walk as {@link snapshotJsonValue} without copying: true when `value` is lossless JSON. */
export function isJsonValue(value: unknown): value is JsonValue {
  return walk(value, 'check').ok
}

/** The outcome of {@link snapshotWithinLimits}: the copy, why it is not lossless JSON, or which limit it broke. */
export type LimitedSnapshot =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly violation: JsonViolation }
  | { readonly ok: false; readonly limit: JsonLimitViolation }

/**
 * {@link snapshotJsonValue} that reports why and where a value was rejected (so a caller can attach a precise `cause`)
 * and also enforces `limits` (depth and JSON size) in the same pass. A value
 * past the depth limit is refused at the first level too deep, before the rest is read.
 */
export function snapshotWithinLimits(value: unknown, limits: JsonLimits): LimitedSnapshot {
  const result = walk(value, 'copy', limits)
  return result.ok ? { ok: true, value: result.value as JsonValue } : result
}

/**
 * {@link snapshotWithinLimits} for a session log: the same checks, reads and copy, frozen as it is built (each copied
 * container once its children are in). The log needs its events deep-frozen; freezing the copy afterwards was a second
 * walk over the same fresh objects on every append. `text`, when given, rewrites every string and key of the copy that
 * is long enough to matter (the secret filter, docs/security.md#the-log).
 */
export function snapshotForLog(value: unknown, limits?: JsonLimits, text?: TextFilter): LimitedSnapshot {
  const result = walk(value, 'log', limits, text)
  return result.ok ? { ok: true, value: result.value as JsonValue } : result
}

/** Why `value` is not lossless JSON (`undefined` when it is). Walks without copying. */
export function jsonValueViolation(value: unknown): JsonViolation | undefined {
  const result = walk(value, 'check')
  return result.ok ? undefined : (result as { violation: JsonViolation }).violation
}

/** An error whose message names the rejected value and its path; attached as `cause` to the fixed messages. */
export function jsonViolationError(violation: JsonViolation): TypeError {
  return new TypeError(`${violation.path}: ${violation.reason}`)
}
