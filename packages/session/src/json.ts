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

/** Why a value is not lossless JSON, and where (`$` is the root, then `.key` / `[index]` segments). */
export interface JsonViolation {
  readonly path: string
  readonly reason: string
}

const verifiedObjectPrototypes = new WeakSet<object>([Object.prototype])
const verifiedArrayPrototypes = new WeakSet<object>([Array.prototype])
const nativeSource = (name: string) => new RegExp(`^function ${name}\\(\\) \\{\\s*\\[native code\\]\\s*\\}$`)
const NATIVE_OBJECT = nativeSource('Object')
const NATIVE_ARRAY = nativeSource('Array')
const functionToString = Function.prototype.toString

/**
 * True when `proto` is some realm's intrinsic prototype for the constructor named by `pattern`: its own
 * `constructor` data property is that realm's native constructor, whose own non-writable `prototype` is `proto`.
 * Never invokes getters; anything exotic (revoked proxies, accessors) simply fails the check.
 */
function isIntrinsicPrototype(proto: object, pattern: RegExp): boolean {
  try {
    const ctorDesc = Reflect.getOwnPropertyDescriptor(proto, 'constructor')
    if (!ctorDesc || !('value' in ctorDesc) || typeof ctorDesc.value !== 'function') return false
    const ctor = ctorDesc.value as object
    if (!pattern.test(functionToString.call(ctor))) return false
    const protoDesc = Reflect.getOwnPropertyDescriptor(ctor, 'prototype')
    return !!protoDesc && protoDesc.value === proto && protoDesc.writable === false && protoDesc.configurable === false
  } catch {
    return false
  }
}

function isRealmObjectPrototype(proto: object): boolean {
  if (verifiedObjectPrototypes.has(proto)) return true
  try {
    if (Reflect.getPrototypeOf(proto) !== null || Array.isArray(proto)) return false
  } catch {
    return false
  }
  if (!isIntrinsicPrototype(proto, NATIVE_OBJECT)) return false
  verifiedObjectPrototypes.add(proto)
  return true
}

function isRealmArrayPrototype(proto: object): boolean {
  if (verifiedArrayPrototypes.has(proto)) return true
  try {
    // The intrinsic Array.prototype is itself an Array exotic object; look-alikes made with Object.create are not.
    if (!Array.isArray(proto)) return false
    const parent = Reflect.getPrototypeOf(proto)
    if (parent === null || !isRealmObjectPrototype(parent)) return false
  } catch {
    return false
  }
  if (!isIntrinsicPrototype(proto, NATIVE_ARRAY)) return false
  verifiedArrayPrototypes.add(proto)
  return true
}

const INDEX = /^(?:0|[1-9][0-9]*)$/

interface Frame {
  readonly source: object
  readonly target: Record<string, unknown> | unknown[] | undefined
  readonly keys: readonly string[]
  readonly isArray: boolean
  next: number
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

function pathOf(stack: readonly Frame[], leafKey?: string): string {
  let path = '$'
  for (const frame of stack) {
    const key = frame.keys[frame.next - 1]
    if (key === undefined) continue
    path += frame.isArray ? `[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
  }
  if (leafKey !== undefined) path += leafKey
  return path
}

/** Classifies a container: its own keys (in order) and kind, or the reason it is not lossless JSON. */
function inspectContainer(value: object): { keys: string[]; isArray: boolean } | { reason: string } {
  if (Array.isArray(value)) {
    const proto = Reflect.getPrototypeOf(value)
    if (proto === null || !isRealmArrayPrototype(proto)) return { reason: 'an Array subclass or an array with a foreign prototype' }
    const length = value.length
    const own = Reflect.ownKeys(value)
    if (own.length !== length + 1) {
      return { reason: own.length < length + 1 ? 'a sparse array' : 'an array with extra own properties' }
    }
    for (const key of own) {
      if (typeof key !== 'string') return { reason: 'an array with a symbol-keyed property' }
      if (key === 'length') continue
      if (!INDEX.test(key) || Number(key) >= length) return { reason: `an array with extra own property ${JSON.stringify(key)}` }
    }
    const keys = new Array<string>(length)
    for (let i = 0; i < length; i++) keys[i] = String(i)
    return { keys, isArray: true }
  }
  const proto = Reflect.getPrototypeOf(value)
  if (proto !== null && !isRealmObjectPrototype(proto)) {
    return { reason: 'an object that is not a plain record (class instance, Map, Set, Date or foreign prototype)' }
  }
  const keys: string[] = []
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== 'string') return { reason: 'an object with a symbol-keyed property' }
    const desc = Reflect.getOwnPropertyDescriptor(value, key)
    if (desc && !desc.enumerable) return { reason: `an object with non-enumerable property ${JSON.stringify(key)}` }
    keys.push(key)
  }
  return { keys, isArray: false }
}

/** Reads one own property exactly once (a getter runs once; its throw propagates). */
function readOwn(source: object, key: string): unknown {
  const desc = Reflect.getOwnPropertyDescriptor(source, key)
  if (desc === undefined) return undefined
  if ('value' in desc) return desc.value
  return desc.get === undefined ? undefined : desc.get.call(source)
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

function define(target: Record<string, unknown> | unknown[], key: string, value: unknown, isArray: boolean): void {
  if (isArray) (target as unknown[])[Number(key)] = value
  else if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
  else (target as Record<string, unknown>)[key] = value
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
function walk(root: unknown, copy: boolean, limits?: JsonLimits): WalkResult {
  const rootReason = leafViolation(root)
  if (rootReason !== undefined) return { ok: false, violation: { path: '$', reason: rootReason } }
  if (root === null || typeof root !== 'object') {
    if (limits !== undefined && scalarBound(root) > limits.maxBytes) return measured(root, limits)
    return { ok: true, value: root }
  }

  let bound = 2
  const stack: Frame[] = []
  const onPath = new Set<object>()
  const open = (source: object): { target: Frame['target'] } | JsonViolation => {
    if (onPath.has(source)) return { path: pathOf(stack), reason: 'a cycle' }
    const info = inspectContainer(source)
    if ('reason' in info) return { path: pathOf(stack), reason: info.reason }
    const target = copy ? (info.isArray ? new Array<unknown>(info.keys.length) : {}) : undefined
    onPath.add(source)
    stack.push({ source, target, keys: info.keys, isArray: info.isArray, next: 0 })
    return { target }
  }

  const opened = open(root)
  if ('reason' in opened) return { ok: false, violation: opened }
  const rootTarget = opened.target

  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.next >= frame.keys.length) {
      stack.pop()
      onPath.delete(frame.source)
      continue
    }
    const key = frame.keys[frame.next++]!
    const value = readOwn(frame.source, key)
    const reason = leafViolation(value)
    if (reason !== undefined) return { ok: false, violation: { path: pathOf(stack), reason } }
    if (limits !== undefined) bound += 1 + (frame.isArray ? 0 : jsonStringBytesBound(key) + 1)
    if (value === null || typeof value !== 'object') {
      if (limits !== undefined) bound += scalarBound(value)
      if (frame.target) define(frame.target, key, value, frame.isArray)
      continue
    }
    if (limits !== undefined) {
      if (stack.length >= limits.maxDepth) {
        return { ok: false, limit: { kind: 'depth', path: limitPath(stack), limit: limits.maxDepth } }
      }
      bound += 2
    }
    const child = open(value)
    if ('reason' in child) return { ok: false, violation: child }
    if (frame.target) define(frame.target, key, child.target, frame.isArray)
  }
  const value = copy ? rootTarget : root
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
    const key = frame.keys[frame.next - 1]
    if (key !== undefined) segments.push(pathSegment(key, frame.isArray))
  }
  return jsonPath('$', segments)
}

/**
 * Validates `value` as lossless JSON and returns a detached plain copy of this realm, or `undefined` when the value
 * is not lossless JSON. Each property is read exactly once (a getter's throw propagates); `toJSON` is ignored; shared
 * acyclic aliases are copied separately; there is no depth limit.
 */
export function snapshotJsonValue(value: unknown): JsonValue | undefined {
  const result = walk(value, true)
  return result.ok ? (result.value as JsonValue) : undefined
}

/** The same walk as {@link snapshotJsonValue} without copying: true when `value` is lossless JSON. */
export function isJsonValue(value: unknown): value is JsonValue {
  return walk(value, false).ok
}

/**
 * Like {@link snapshotJsonValue}, but reports why and where a value was rejected. Used to attach a precise `cause` to
 * the fixed error messages, so a caller learns which value at which path was wrong.
 */
export function snapshotJsonValueOrViolation(value: unknown): { ok: true; value: JsonValue } | { ok: false; violation: JsonViolation } {
  const result = walk(value, true)
  return result.ok ? { ok: true, value: result.value as JsonValue } : (result as { ok: false; violation: JsonViolation })
}

/** The outcome of {@link snapshotWithinLimits}: the copy, why it is not lossless JSON, or which limit it broke. */
export type LimitedSnapshot =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly violation: JsonViolation }
  | { readonly ok: false; readonly limit: JsonLimitViolation }

/**
 * {@link snapshotJsonValueOrViolation} that also enforces `limits` (depth and JSON size) in the same pass. A value
 * past the depth limit is refused at the first level too deep, before the rest is read.
 */
export function snapshotWithinLimits(value: unknown, limits: JsonLimits): LimitedSnapshot {
  const result = walk(value, true, limits)
  return result.ok ? { ok: true, value: result.value as JsonValue } : result
}

/** Why `value` is not lossless JSON (`undefined` when it is). Walks without copying. */
export function jsonValueViolation(value: unknown): JsonViolation | undefined {
  const result = walk(value, false)
  return result.ok ? undefined : (result as { violation: JsonViolation }).violation
}

/** An error whose message names the rejected value and its path; attached as `cause` to the fixed messages. */
export function jsonViolationError(violation: JsonViolation): TypeError {
  return new TypeError(`${violation.path}: ${violation.reason}`)
}
