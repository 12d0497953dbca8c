/**
 * What a session listing shows without reading a whole log: a backend keeps (or reads cheaply) a summary per session
 * — its header, event count, turns, last activity, model and first prompt — and `summaryFacts` is the one rule for
 * what each event contributes, shared by every backend so they agree.
 */
import type { SessionHeader } from '../events/header.js'

/** One stored session as a listing shows it. */
export interface SessionSummary {
  readonly meta: SessionHeader
  /** The backend's revision of the stored log (as `listSnapshots` gives it). */
  readonly revision: string
  /** Stored events (the next seq). */
  readonly events: number
  /** The number of the latest turn (turns are numbered 1, 2, … along a log): the count of turns; 0 before the first. */
  readonly turns: number
  /** The time of the last stored event, or the header's `createdAt` for a session without events. */
  readonly lastActivity: number
  /** The provider and model of the latest request or answer, when there was one. */
  readonly model?: { readonly provider: string; readonly model: string }
  /** The text of the first user message, cut to `FIRST_PROMPT_CHARS` characters. */
  readonly firstPrompt?: string
}

/** How much of the first prompt a summary keeps. */
export const FIRST_PROMPT_CHARS = 200

/** What one event tells a summary: its time, and where it has them, a turn number, a model, a user prompt. */
export interface SummaryFacts {
  readonly time: number
  readonly turn?: number
  readonly model?: { readonly provider: string; readonly model: string }
  readonly prompt?: string
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null

function modelOf(type: string, data: Record<string, unknown>): SummaryFacts['model'] {
  const from =
    type === 'request/header' && isRecord(data.header) && isRecord(data.header.config)
      ? data.header.config
      : type === 'assistant/message' && isRecord(data.message) && isRecord(data.message.source)
        ? data.message.source
        : undefined
  if (from === undefined || typeof from.provider !== 'string' || typeof from.model !== 'string') return undefined
  return { provider: from.provider, model: from.model }
}

function promptOf(type: string, data: Record<string, unknown>): string | undefined {
  if (type !== 'user/message' || !Array.isArray(data.content)) return undefined
  const text = data.content
    .filter((block): block is { type: 'text'; text: string } => isRecord(block) && block.type === 'text')
    .map((block) => block.text)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
  return text === '' ? undefined : text.slice(0, FIRST_PROMPT_CHARS)
}

/** The facts of one stored event (`{type, time, data}` as parsed from the log; anything else gives only its time). */
export function summaryFacts(event: {
  readonly type: string
  readonly time: number
  readonly data?: unknown
}): SummaryFacts {
  const data = isRecord(event.data) ? event.data : {}
  // every event of a turn carries its number, and numbers only grow along a log: the latest one is the count
  const turn = typeof data.turn === 'number' && Number.isSafeInteger(data.turn) ? data.turn : undefined
  const model = modelOf(event.type, data)
  const prompt = promptOf(event.type, data)
  return {
    time: event.time,
    ...(turn === undefined ? {} : { turn }),
    ...(model === undefined ? {} : { model }),
    ...(prompt === undefined ? {} : { prompt }),
  }
}

/** The summary of a whole list of events (what a backend computes when it has no stored summary to read). */
export function summarizeEvents(
  meta: SessionHeader,
  revision: string,
  events: readonly { readonly type: string; readonly time: number; readonly data?: unknown }[],
): SessionSummary {
  let turns = 0
  let model: SummaryFacts['model']
  let firstPrompt: string | undefined
  for (const event of events) {
    const facts = summaryFacts(event)
    if (facts.turn !== undefined && facts.turn > turns) turns = facts.turn
    if (facts.model !== undefined) model = facts.model
    if (firstPrompt === undefined && facts.prompt !== undefined) firstPrompt = facts.prompt
  }
  return Object.freeze({
    meta,
    revision,
    events: events.length,
    turns,
    lastActivity: events.at(-1)?.time ?? meta.createdAt,
    ...(model === undefined ? {} : { model }),
    ...(firstPrompt === undefined ? {} : { firstPrompt }),
  })
}
