/**
 * Message sources: who produced a message, and for plugin-injected context, what kind of context it is.
 * The union is built from an extensible interface map keyed by `kind`.
 */
import type { CallId, JsonValue } from './ids.js'
import { isRecord } from './record.js'

/** Longest allowed one-line `summary` of a `notice` context. */
export const CONTEXT_SUMMARY_MAX_CHARS = 120

/** The meaning of plugin-injected context (not its rendering). */
export type ContextForm = 'instructions' | 'catalog' | 'snapshot' | 'notice' | 'relay' | 'recall'

/** The context forms, in declaration order. */
export const CONTEXT_FORMS: readonly ContextForm[] = Object.freeze([
  'instructions',
  'catalog',
  'snapshot',
  'notice',
  'relay',
  'recall',
])

/** One contributing subsystem's part of a `snapshot` context. */
export interface ContextSnapshotSection {
  /** The contributing subsystem. */
  name: string
  /** Its model-facing text. */
  text: string
}

/** Context form fields mixed into `plugin` sources; `snapshot` needs sections, `notice` a summary. */
export type ContextFormed =
  | { form?: 'instructions' | 'catalog' | 'relay' | 'recall' | undefined; sections?: undefined; summary?: undefined }
  | { form: 'snapshot'; sections: readonly ContextSnapshotSection[]; summary?: string | undefined }
  | { form: 'notice'; summary: string; sections?: undefined }

export interface UserSource {
  kind: 'user'
}

export type PluginSource = { kind: 'plugin'; plugin: string } & ContextFormed

/** Provenance of an assistant message. `replayState` is adapter-private. */
export interface ModelSource {
  kind: 'model'
  provider: string
  model: string
  replayState?: JsonValue
}

/** Alias used by the loop for the provenance of assistant messages. */
export type AssistantProvenance = ModelSource

export interface ToolSource {
  kind: 'tool'
  callId: CallId
}

/** The extensible source map, keyed by `kind`. */
export interface MessageSourceMap {
  user: UserSource
  plugin: PluginSource
  model: ModelSource
  tool: ToolSource
}

/** Any message source. */
export type MessageSource = MessageSourceMap[keyof MessageSourceMap]

/**
 * Bounds a context summary to one line: collapses whitespace runs (newlines included) to single spaces,
 * trims, and when longer than `CONTEXT_SUMMARY_MAX_CHARS` cuts to 119 characters plus `…`.
 */
export function boundContextSummary(text: string): string {
  const line = String(text).replace(/\s+/g, ' ').trim()
  if (line.length <= CONTEXT_SUMMARY_MAX_CHARS) return line
  return `${line.slice(0, CONTEXT_SUMMARY_MAX_CHARS - 1)}…`
}

/**
 * Checks a message source's structure and throws `TypeError` naming the problem. Known kinds are checked
 * field by field; kinds added by declaration merging only need a non-empty string `kind`.
 */
export function assertMessageSource(source: unknown, where = 'message source'): asserts source is MessageSource {
  if (!isRecord(source)) throw new TypeError(`${where} must be an object`)
  const kind = source.kind
  if (typeof kind !== 'string' || kind === '') throw new TypeError(`${where}.kind must be a non-empty string`)
  switch (kind) {
    case 'user':
      return
    case 'model':
      if (typeof source.provider !== 'string' || source.provider === '')
        throw new TypeError(`${where}.provider must be a non-empty string`)
      if (typeof source.model !== 'string' || source.model === '')
        throw new TypeError(`${where}.model must be a non-empty string`)
      return
    case 'tool':
      if (typeof source.callId !== 'string' || source.callId === '')
        throw new TypeError(`${where}.callId must be a non-empty string`)
      return
    case 'plugin':
      assertPluginSource(source, where)
      return
    default:
      return
  }
}

function assertPluginSource(source: Record<string, unknown>, where: string): void {
  if (typeof source.plugin !== 'string' || source.plugin === '')
    throw new TypeError(`${where}.plugin must be a non-empty string`)
  const form = source.form
  if (form === undefined) return
  if (typeof form !== 'string' || !(CONTEXT_FORMS as readonly string[]).includes(form))
    throw new TypeError(`${where}.form must be one of ${CONTEXT_FORMS.join(', ')} (got ${JSON.stringify(form)})`)
  if (form === 'snapshot') {
    const sections = source.sections
    if (!Array.isArray(sections)) throw new TypeError(`${where}: a snapshot context requires sections`)
    sections.forEach((section: unknown, i) => {
      if (!isRecord(section) || typeof section.name !== 'string' || typeof section.text !== 'string')
        throw new TypeError(`${where}.sections[${i}] must be {name: string, text: string}`)
    })
  }
  if (form === 'notice' || source.summary !== undefined) {
    const summary = source.summary
    if (typeof summary !== 'string' || summary.trim() === '')
      throw new TypeError(`${where}: a notice context requires a one-line summary`)
    if (/[\r\n]/.test(summary) || summary.length > CONTEXT_SUMMARY_MAX_CHARS)
      throw new TypeError(
        `${where}.summary must be one line of at most ${CONTEXT_SUMMARY_MAX_CHARS} characters (use boundContextSummary)`,
      )
  }
}
