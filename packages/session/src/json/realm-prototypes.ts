/**
 * Which prototypes count as "plain" for lossless JSON values: the intrinsic `Object.prototype` and
 * `Array.prototype` of this or any other realm (a `vm` context's objects are plain JSON too), recognised without
 * invoking a getter, and remembered once recognised.
 */

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

export function isRealmObjectPrototype(proto: object): boolean {
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

export function isRealmArrayPrototype(proto: object): boolean {
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
