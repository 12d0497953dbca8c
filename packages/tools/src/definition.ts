import { deepFreeze, type ToolSchema } from '@bridle/llm'
import { z, type ZodType } from 'zod'
import { snapshotJson } from './result.js'
import type { ToolDefinition } from './types.js'

/** The tool-name grammar (also rules out the system prompt's reserved `<unlisted-tools>`). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

/** A registered tool: the frozen definition, its model-facing JSON Schema, and the zod schema when it has one. */
export interface CompiledTool {
  readonly name: string
  readonly definition: Readonly<ToolDefinition>
  /** Deep-frozen JSON Schema sent to the model (no `$schema` key). */
  readonly parameters: Readonly<Record<string, unknown>>
  readonly zod: ZodType | undefined
}

/** True for values carrying zod 4's `_zod` internals (how a zod schema is recognised). */
export function isZodSchema(value: unknown): value is ZodType {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { _zod?: unknown })._zod === 'object' &&
    (value as { _zod?: unknown })._zod !== null
  )
}

/**
 * True for a zod 3 schema (`_def` with a `Zod…` type name, or a standard-schema vendor of `zod`, and no `_zod`). Such
 * a schema reaches us when an app installs zod 3 next to Bridle; it gets its own error so the fix is obvious.
 */
export function isZod3Schema(value: unknown): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null || isZodSchema(value)) return false
  const def = (value as { _def?: { typeName?: unknown } })._def
  if (typeof def === 'object' && def !== null && typeof def.typeName === 'string' && def.typeName.startsWith('Zod'))
    return true
  const standard = (value as { '~standard'?: { vendor?: unknown } })['~standard']
  return typeof standard === 'object' && standard !== null && standard.vendor === 'zod'
}

function describeName(name: unknown): string {
  try {
    return String(name)
  } catch {
    return '<unprintable>'
  }
}

function toJsonSchema(
  name: string,
  parameters: unknown,
): { schema: Record<string, unknown>; zod: ZodType | undefined } {
  if (isZodSchema(parameters)) {
    let schema: Record<string, unknown>
    try {
      schema = z.toJSONSchema(parameters, { io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e)
      throw new TypeError(`tool "${name}" parameters cannot be converted to JSON Schema: ${message}`)
    }
    delete schema.$schema
    return { schema, zod: parameters }
  }
  if (isZod3Schema(parameters)) {
    throw new TypeError(
      `tool "${name}" parameters is a zod 3 schema; Bridle needs zod 4 (^4.6.7): install zod@4 in your app and build the schema with it`,
    )
  }
  // A value that is not an object at all (absent, null, a string, an array) cannot describe a JSON object: that is
  // the documented root message. An object that is not plain, lossless JSON gets the more specific message below.
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    throw new TypeError(`tool "${name}" parameters must describe a JSON object`)
  }
  const isPlain = [Object.prototype, null].includes(Object.getPrototypeOf(parameters))
  const copy = isPlain ? snapshotJson(parameters) : undefined
  if (copy === undefined) {
    throw new TypeError(
      `tool "${name}" parameters must be a zod schema or a plain, losslessly JSON-serializable JSON Schema object`,
    )
  }
  return { schema: copy as Record<string, unknown>, zod: undefined }
}

/**
 * Validates a definition and computes its model-facing schema, synchronously and before anything is stored, so a failed
 * registration leaves nothing behind. Throws `TypeError` with the wording the README documents. The returned record is
 * frozen; later edits to the caller's object (or its raw schema) have no effect.
 */
export function compileTool(input: ToolDefinition): CompiledTool {
  if (typeof input !== 'object' || input === null) throw new TypeError('tool definition must be an object')
  const { name, description, parameters, execute, concurrencySafe } = input
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new TypeError(`invalid tool name "${describeName(name)}" (must match /^[a-zA-Z0-9_-]{1,64}$/)`)
  }
  if (typeof description !== 'string') throw new TypeError(`tool "${name}" description must be a string`)
  if (typeof execute !== 'function') throw new TypeError(`tool "${name}" must have an execute function`)
  if (concurrencySafe !== undefined && typeof concurrencySafe !== 'boolean' && typeof concurrencySafe !== 'function') {
    throw new TypeError(`tool "${name}" concurrencySafe must be a boolean or a function`)
  }
  const { schema, zod } = toJsonSchema(name, parameters)
  if (schema.type !== 'object') throw new TypeError(`tool "${name}" parameters must describe a JSON object`)
  const definition: ToolDefinition = { name, description, parameters, execute }
  if (concurrencySafe !== undefined) definition.concurrencySafe = concurrencySafe
  return Object.freeze({
    name,
    definition: Object.freeze(definition),
    parameters: deepFreeze(schema),
    zod,
  })
}

/**
 * The compiled tool's schema without copying (its parameters are the deep-frozen compiled ones), for the prompt tool
 * provider only: assembly rebuilds every schema with cloned parameters itself, so a copy here would be a second one.
 */
export function toolSchemaViewOf(tool: CompiledTool): ToolSchema {
  return {
    name: tool.name,
    description: tool.definition.description,
    parameters: tool.parameters as Record<string, unknown>,
  }
}

/** A fresh, mutable `ToolSchema` copy of a compiled tool, as `schemas()` hands out. */
export function toolSchemaOf(tool: CompiledTool): ToolSchema {
  return {
    name: tool.name,
    description: tool.definition.description,
    parameters: structuredClone(tool.parameters) as Record<string, unknown>,
  }
}
