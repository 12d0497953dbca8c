/**
 * Model metadata validation and call-config resolution (docs/model-calls.md#routes-and-adapters). Adapters report
 * metadata; the runtime never trusts it unchecked, because a bad context window or effort list would silently corrupt
 * every request built from it.
 */
import type { LlmAdapter, LlmModelInfo } from './adapter.js'
import { LlmError } from './errors.js'
import { deepFreeze } from './freeze.js'
import { callConfigOf, type LlmCallConfig, type LlmCallConfigAdapterDefaults } from './request.js'
import { isRecord } from './record.js'

function isPositiveSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value !== ''
}

/** The `ABORTED` error the runtime throws when the caller's signal fires. */
export function abortedError(signal: AbortSignal): LlmError {
  const reason: unknown = signal.reason
  const detail = reason instanceof Error && reason.message ? `: ${reason.message}` : ''
  return new LlmError(`LLM call aborted${detail}`, 'ABORTED', { cause: reason })
}

/** Awaits `value`, rejecting with `ABORTED` as soon as `signal` fires (even if `value` never settles). */
export function raceAbort<T>(value: T | Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return Promise.resolve(value)
  if (signal.aborted) return Promise.reject(abortedError(signal))
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    Promise.resolve(value).then(
      (result) => {
        signal.removeEventListener('abort', onAbort)
        resolve(result)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * Validates adapter-reported model info for `provider`/`model` and returns a deep-frozen copy.
 * Throws `LlmError` `INVALID_MODEL_INFO` (identity/name), `INVALID_MODEL_CONTEXT`, `INVALID_MODEL_MAX_TOKENS`
 * or `INVALID_MODEL_REASONING`, each naming the route and model.
 */
function validateModelInfo(info: unknown, provider: string, model: string): LlmModelInfo {
  const where = `model "${model}" on provider "${provider}"`
  if (!isRecord(info)) throw new LlmError(`${where}: model info must be an object`, 'INVALID_MODEL_INFO')
  if (info.provider !== provider || info.id !== model)
    throw new LlmError(
      `${where}: model info names provider ${JSON.stringify(info.provider)} and id ${JSON.stringify(info.id)}`,
      'INVALID_MODEL_INFO',
    )
  if (!nonEmpty(info.name)) throw new LlmError(`${where}: model info needs a non-empty name`, 'INVALID_MODEL_INFO')
  if (info.description !== undefined && typeof info.description !== 'string')
    throw new LlmError(`${where}: model description must be a string`, 'INVALID_MODEL_INFO')
  if (info.context !== undefined && !(isRecord(info.context) && isPositiveSafeInteger(info.context.contextWindow)))
    throw new LlmError(`${where}: context.contextWindow must be a positive safe integer`, 'INVALID_MODEL_CONTEXT')
  if (info.defaultMaxTokens !== undefined && !isPositiveSafeInteger(info.defaultMaxTokens))
    throw new LlmError(`${where}: defaultMaxTokens must be a positive safe integer`, 'INVALID_MODEL_MAX_TOKENS')
  if (info.reasoning !== undefined) validateReasoning(info.reasoning, where)
  let copy: LlmModelInfo
  try {
    copy = structuredClone(info) as unknown as LlmModelInfo
  } catch (error) {
    throw new LlmError(`${where}: model info must be plain data`, 'INVALID_MODEL_INFO', { cause: error })
  }
  return deepFreeze(copy)
}

function validateReasoning(reasoning: unknown, where: string): void {
  const fail = (problem: string) => new LlmError(`${where}: ${problem}`, 'INVALID_MODEL_REASONING')
  if (!isRecord(reasoning)) throw fail('reasoning must be an object')
  const efforts = reasoning.efforts
  if (!Array.isArray(efforts) || efforts.length === 0) throw fail('reasoning.efforts must be a non-empty list')
  const ids = new Set<string>()
  for (const effort of efforts as unknown[]) {
    if (!isRecord(effort) || !nonEmpty(effort.id) || !nonEmpty(effort.name))
      throw fail('each reasoning effort needs a non-empty id and name')
    if (ids.has(effort.id)) throw fail(`reasoning effort "${effort.id}" is listed twice`)
    ids.add(effort.id)
  }
  const fallback = reasoning.defaultEffort
  if (fallback !== undefined && !(typeof fallback === 'string' && ids.has(fallback)))
    throw fail(`defaultEffort ${JSON.stringify(fallback)} is not one of the listed efforts`)
}

/** Validates a route's model catalog and returns a deep-frozen copy; any problem is `INVALID_CATALOG`. */
export function validateCatalog(list: unknown, provider: string): readonly LlmModelInfo[] {
  const fail = (problem: string) =>
    new LlmError(`model catalog of provider "${provider}": ${problem}`, 'INVALID_CATALOG')
  if (!Array.isArray(list)) throw fail('must be a list')
  const ids = new Set<string>()
  list.forEach((entry: unknown, i) => {
    if (!isRecord(entry)) throw fail(`entry ${i} must be an object`)
    if (entry.provider !== provider) throw fail(`entry ${i} names provider ${JSON.stringify(entry.provider)}`)
    if (!nonEmpty(entry.id)) throw fail(`entry ${i} needs a non-empty id`)
    if (ids.has(entry.id)) throw fail(`model "${entry.id}" is listed twice`)
    if (!nonEmpty(entry.name)) throw fail(`model "${entry.id}" needs a non-empty name`)
    ids.add(entry.id)
  })
  try {
    return deepFreeze(structuredClone(list) as LlmModelInfo[])
  } catch (error) {
    throw new LlmError(`model catalog of provider "${provider}": must be plain data`, 'INVALID_CATALOG', {
      cause: error,
    })
  }
}

/**
 * Asks `adapter` (or the default: `{provider, id: model, name: model}`) for the exact model's info, validates
 * it and returns a deep-frozen copy. An aborted `signal` rejects with `ABORTED`.
 */
export async function resolveModelInfo(
  adapter: LlmAdapter,
  provider: string,
  model: string,
  signal?: AbortSignal,
): Promise<LlmModelInfo> {
  if (signal?.aborted) throw abortedError(signal)
  const raw = adapter.resolveModel
    ? await raceAbort(adapter.resolveModel(provider, model, signal), signal)
    : { provider, id: model, name: model }
  if (signal?.aborted) throw abortedError(signal)
  return validateModelInfo(raw, provider, model)
}

/** A resolved call config and the fields the model's defaults supplied. */
export interface ResolvedCallConfig {
  config: LlmCallConfig
  adapterDefaults: LlmCallConfigAdapterDefaults
}

/**
 * Resolves a proposed config against the exact model: materializes `defaultMaxTokens` and `defaultEffort`
 * when the caller left them out (flagging them), and rejects efforts the model does not list with
 * `UNSUPPORTED_REASONING_EFFORT`. Explicit values win; nothing is clamped or aliased. The input is never
 * mutated; both results are deep-frozen.
 */
export function resolveCallConfig(proposed: LlmCallConfig, info: LlmModelInfo): ResolvedCallConfig {
  const config = callConfigOf(proposed) as { -readonly [K in keyof LlmCallConfig]: LlmCallConfig[K] }
  if (config.stop !== undefined) config.stop = [...config.stop]
  const adapterDefaults: LlmCallConfigAdapterDefaults = {}
  if (config.maxTokens === undefined && info.defaultMaxTokens !== undefined) {
    config.maxTokens = info.defaultMaxTokens
    adapterDefaults.maxTokens = true
  }
  const where = `model "${info.id}" on provider "${info.provider}"`
  if (!info.reasoning) {
    if (config.reasoningEffort !== undefined)
      throw new LlmError(
        `${where} does not support reasoning effort "${config.reasoningEffort}" (it advertises no reasoning efforts)`,
        'UNSUPPORTED_REASONING_EFFORT',
      )
  } else {
    const effective = config.reasoningEffort ?? info.reasoning.defaultEffort
    if (effective !== undefined) {
      if (!info.reasoning.efforts.some((effort) => effort.id === effective))
        throw new LlmError(
          `${where} does not support reasoning effort "${effective}" (supported: ${info.reasoning.efforts.map((e) => e.id).join(', ')})`,
          'UNSUPPORTED_REASONING_EFFORT',
        )
      if (config.reasoningEffort === undefined) {
        config.reasoningEffort = effective
        adapterDefaults.reasoningEffort = true
      }
    }
  }
  return { config: deepFreeze(config), adapterDefaults: deepFreeze(adapterDefaults) }
}
