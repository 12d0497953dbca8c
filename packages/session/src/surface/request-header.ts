/**
 * Request header and request context folds (docs/surface-and-reconstruction.md#request-header-and-context): what was
 * sent, and the route's capacity.
 */
import { callConfigEquals, deepFreeze, type LlmCallConfig, type ToolSchema } from '@bridle/llm'
import type {
  AnySessionEvent,
  EpochHeader,
  EpochHeaderAdapterDefaults,
  RequestContext,
  RequestHeaderReason,
} from '../events/events.js'

/**
 * Builds the canonical form of a header as a new object: `config` verbatim, `adapterDefaults` whole only when a flag
 * is `true`, `system` and `tools` only when non-empty (tools keep their order). Nothing is sorted or hashed.
 */
export function canonicalHeader(header: EpochHeader): EpochHeader {
  const out: {
    config: LlmCallConfig
    adapterDefaults?: EpochHeaderAdapterDefaults
    system?: string
    tools?: readonly ToolSchema[]
  } = {
    config: header.config,
  }
  const defaults = header.adapterDefaults
  if (defaults !== undefined && (defaults.reasoningEffort === true || defaults.maxTokens === true))
    out.adapterDefaults = defaults
  if (header.system !== undefined && header.system !== '') out.system = header.system
  if (header.tools !== undefined && header.tools.length > 0) out.tools = header.tools
  return out
}

/**
 * Field-by-field header equality without canonicalizing: the config by `callConfigEquals` (`===`, `stop` element-wise,
 * `undefined` differs from `[]`), both adapter-default flags, `system` by `===` (absent differs from `''`), and tools
 * by length and pairwise `JSON.stringify` (order and key order matter; absent equals `[]`).
 */
export function headerEquals(a: EpochHeader, b: EpochHeader): boolean {
  if (!callConfigEquals(a.config, b.config)) return false
  if (a.adapterDefaults?.reasoningEffort !== b.adapterDefaults?.reasoningEffort) return false
  if (a.adapterDefaults?.maxTokens !== b.adapterDefaults?.maxTokens) return false
  if (a.system !== b.system) return false
  const ta = a.tools ?? []
  const tb = b.tools ?? []
  return (
    ta.length === tb.length &&
    ta.every((tool, i) => sameJsonTree(tool, tb[i]) || JSON.stringify(tool) === JSON.stringify(tb[i]))
  )
}

const isPlainContainer = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === Array.prototype || proto === null
}

/**
 * A sufficient, string-free test for `JSON.stringify(a) === JSON.stringify(b)` (called once per step for every
 * tool): the same value, or plain objects/arrays with the same own keys in the same order whose leaves are `===`.
 * `false` only means "not proven", and the caller falls back to comparing the strings.
 */
function sameJsonTree(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth > 64) return false
  if (Array.isArray(a) !== Array.isArray(b) || !isPlainContainer(a) || !isPlainContainer(b)) return false
  if (Array.isArray(a) && a.length !== (b as unknown[]).length) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  for (let i = 0; i < ka.length; i++) {
    const key = ka[i]!
    if (key !== kb[i] || key === 'toJSON') return false
    if (!sameJsonTree((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], depth + 1)) return false
  }
  return true
}

interface HeaderRecordData {
  readonly header: EpochHeader
  readonly reason: RequestHeaderReason
  readonly sections?: unknown
}

/**
 * The last `request/header` of `events` with its seq, or `undefined`. Scans backwards. `sections` is the recorded
 * manifest as logged (unchecked; `readSectionManifest` checks it against the system string).
 */
export function lastRequestHeaderRecord(
  events: readonly AnySessionEvent[],
  end = events.length,
):
  | {
      readonly seq: number
      readonly header: EpochHeader
      readonly reason: RequestHeaderReason
      readonly sections: unknown
    }
  | undefined {
  for (let i = end - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'request/header') {
      const data = event.data as HeaderRecordData
      return { seq: event.seq, header: data.header, reason: data.reason, sections: data.sections }
    }
  }
  return undefined
}

/**
 * The `canonicalHeader` of the last `request/header` in `events`; with none, `from` (the same object) or
 * `undefined`.
 */
export function foldRequestHeader(events: Iterable<AnySessionEvent>, from?: EpochHeader): EpochHeader | undefined {
  let last: EpochHeader | undefined
  for (const event of events) if (event.type === 'request/header') last = (event.data as HeaderRecordData).header
  return last === undefined ? from : canonicalHeader(last)
}

/** The data of the last `request/context` in `events`, or `undefined`. */
export function foldRequestContext(events: Iterable<AnySessionEvent>): RequestContext | undefined {
  let last: RequestContext | undefined
  for (const event of events) if (event.type === 'request/context') last = event.data as RequestContext
  return last
}

/**
 * The incremental folds behind `session.requestHeader()` / `requestContext()`. The session hands each committed
 * event over once (`observe`, O(1)); a call then only canonicalizes and freezes a header that arrived since the
 * previous call, so the log is never rescanned. Results are deep-frozen and keep their identity until a new record
 * arrives.
 */
export class RequestFacts {
  private pendingHeader: EpochHeader | undefined
  private header: EpochHeader | undefined
  private context: RequestContext | undefined
  observe(event: AnySessionEvent): void {
    if (event.type === 'request/header') this.pendingHeader = (event.data as HeaderRecordData).header
    else if (event.type === 'request/context') this.context = event.data as RequestContext
  }

  requestHeader(): EpochHeader | undefined {
    if (this.pendingHeader !== undefined) {
      this.header = deepFreeze(canonicalHeader(this.pendingHeader))
      this.pendingHeader = undefined
    }
    return this.header
  }

  requestContext(): RequestContext | undefined {
    return this.context
  }
}
