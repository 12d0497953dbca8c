/**
 * Prompt-cache placement at station S10 (docs/caching.md#where-the-placement-is-decided): when the route's adapter
 * places breakpoints itself (`PreparedLlmCall.planCache`), the loop hands it what the session knows — which sections
 * changed how often, how often the tools changed, where the newest runtime-context snapshot sits, what the previous
 * request placed and how long ago it went out — and records the answer as `request/cache` before the request is
 * frozen and digested, so the digest covers it and `bridle inspect --cache` reads it from the log alone.
 */
import {
  isCachePlan,
  type CachePlan,
  type CachePlanInput,
  type Message,
  type PreparedLlmCall,
  type ToolSchema,
} from '@bridle/llm'
import { sectionChanges, type SystemSectionRecord, type SystemSectionSpan } from '@bridle/session'
import type { AgentRuntime } from './runtime.js'

/** What the loop remembers between requests of one agent instance; seeded once from the log. */
export interface CacheFacts {
  /** Header changes that changed each section's text, by section name. */
  readonly sectionChanges: Map<string, number>
  toolChanges: number
  /** The manifest and tool names of the last header seen, to count the next change. */
  lastSections: readonly SystemSectionRecord[] | undefined
  lastTools: string | undefined
  previous:
    | {
        plan?: CachePlan
        messageCount: number
        time: number
        /** What that request carried, to tell whether the next one starts with all of it (by identity: cheap). */
        system?: string
        tools?: readonly ToolSchema[]
        messages?: readonly Message[]
        /** Read from the log (a resume): compared by value and by the recorded digest chain instead. */
        seeded?: true
      }
    | undefined
  /** The newest snapshot found so far and its index, so the next search starts there. */
  snapshot: { message: Message; index: number } | undefined
}

/** Facts of a fresh instance: everything a resumed log already says is read by `seedCacheFacts`. */
function emptyFacts(): CacheFacts {
  return {
    sectionChanges: new Map(),
    toolChanges: 0,
    lastSections: undefined,
    lastTools: undefined,
    previous: undefined,
    snapshot: undefined,
  }
}

const factsByRuntime = new WeakMap<AgentRuntime, CacheFacts>()

const toolKey = (tools: readonly ToolSchema[] | undefined) => JSON.stringify((tools ?? []).map((t) => t.name))

/** True once the instance's facts were seeded (from then on each logged header is counted as it is appended). */
export function cacheFactsKnown(rt: AgentRuntime): boolean {
  return factsByRuntime.has(rt)
}

/** Counts a header the instance just logged. */
export function noteHeader(
  rt: AgentRuntime,
  sections: readonly SystemSectionRecord[] | undefined,
  tools: readonly ToolSchema[] | undefined,
): void {
  countHeader(cacheFactsOf(rt), sections, tools)
}

/** Counts one logged header against the facts: the sections it changed, and whether the tools changed. */
function countHeader(
  facts: CacheFacts,
  sections: readonly SystemSectionRecord[] | undefined,
  tools: readonly ToolSchema[] | undefined,
): void {
  const key = toolKey(tools)
  if (facts.lastTools !== undefined && facts.lastTools !== key) facts.toolChanges++
  facts.lastTools = key
  if (facts.lastSections !== undefined && sections !== undefined) {
    for (const change of sectionChanges(facts.lastSections, sections)) {
      if (change.kind === 'removed') continue
      facts.sectionChanges.set(change.name, (facts.sectionChanges.get(change.name) ?? 0) + 1)
    }
  }
  if (sections !== undefined) facts.lastSections = sections
}

/** Reads the facts a log already holds (a resumed or seeded session), once per agent instance. */
function seedCacheFacts(rt: AgentRuntime): CacheFacts {
  const facts = emptyFacts()
  let plan: CachePlan | undefined
  let header: { system?: string; tools?: readonly ToolSchema[] } | undefined
  for (const event of rt.session.events) {
    if (event.type === 'request/header') {
      countHeader(facts, event.data.sections, event.data.header.tools)
      header = event.data.header
    } else if (event.type === 'request/cache' && isCachePlan(event.data.plan)) plan = event.data.plan
    else if (event.type === 'request/digest' && event.data.purpose === undefined) {
      facts.previous = {
        ...(plan === undefined ? {} : { plan }),
        messageCount: event.data.messages.count,
        time: event.time,
        ...(header?.system === undefined ? {} : { system: header.system }),
        ...(header?.tools === undefined ? {} : { tools: header.tools }),
        seeded: true,
      }
    }
  }
  return facts
}

/** The instance's facts, seeded from the log on first use. */
export function cacheFactsOf(rt: AgentRuntime): CacheFacts {
  let facts = factsByRuntime.get(rt)
  if (facts === undefined) {
    facts = seedCacheFacts(rt)
    factsByRuntime.set(rt, facts)
  }
  return facts
}

/** Index of the newest runtime-context snapshot in `messages`, searching back only to the last one found. */
function snapshotIndex(facts: CacheFacts, messages: readonly Message[]): number | undefined {
  const known = facts.snapshot
  const floor = known !== undefined && messages[known.index] === known.message ? known.index : -1
  for (let i = messages.length - 1; i > floor; i--) {
    const source = messages[i]!.source
    if (source.kind === 'plugin' && source.form === 'snapshot') {
      facts.snapshot = { message: messages[i]!, index: i }
      return i
    }
  }
  if (floor >= 0) return floor
  facts.snapshot = undefined
  return undefined
}

/**
 * Whether the request starts with all of the previous one. The folded header keeps the same system and tools objects
 * while nothing changed and the session's history only grows, so identity answers it in O(1). After a resume the
 * previous request is known only from the log: its header is compared by value, and its messages by the digest
 * chain the log recorded for them (`Session.digestedPrefix`, no hashing); anything else counts as not held.
 */
function prefixHeld(
  rt: AgentRuntime,
  previous: NonNullable<CacheFacts['previous']>,
  parts: CacheRequestParts,
): boolean {
  if (previous.seeded === true) {
    return (
      previous.system === parts.system &&
      JSON.stringify(previous.tools ?? []) === JSON.stringify(parts.tools ?? []) &&
      rt.session.digestedPrefix(parts.messages)?.count === previous.messageCount
    )
  }
  const before = previous.messages
  if (before === undefined || previous.system !== parts.system || previous.tools !== parts.tools) return false
  const n = before.length
  const now = parts.messages
  return n === 0 || (now.length >= n && now[0] === before[0] && now[n - 1] === before[n - 1])
}

/** The request parts the placement reads. */
export interface CacheRequestParts {
  readonly provider: string
  readonly model: string
  readonly system?: string
  readonly tools?: readonly ToolSchema[]
  readonly messages: readonly Message[]
  readonly spans: readonly SystemSectionSpan[]
}

/**
 * Asks the prepared call's adapter for a placement and, when it gives one, appends `request/cache {turn, step, plan}`.
 * Returns the plan for the request, or `undefined` (no placement: the adapter does not place breakpoints, or the
 * route is unprepared).
 */
export function planRequestCache(
  rt: AgentRuntime,
  prepared: PreparedLlmCall | undefined,
  at: { readonly turn: number; readonly step: number },
  parts: CacheRequestParts,
): CachePlan | undefined {
  if (prepared?.planCache === undefined) return undefined
  const facts = cacheFactsOf(rt)
  const now = Date.now()
  const sections = parts.spans.map((span) => ({
    name: span.name,
    start: span.start,
    end: span.end,
    changes: facts.sectionChanges.get(span.name) ?? 0,
  }))
  const index = snapshotIndex(facts, parts.messages)
  const previous = facts.previous
  const input: CachePlanInput = {
    request: {
      provider: parts.provider,
      model: parts.model,
      ...(parts.system === undefined ? {} : { system: parts.system }),
      ...(parts.tools === undefined ? {} : { tools: parts.tools }),
      messages: parts.messages,
    },
    sections,
    toolChanges: facts.toolChanges,
    ...(index === undefined ? {} : { snapshotIndex: index }),
    ...(previous === undefined
      ? {}
      : {
          previous: {
            ...(previous.plan === undefined ? {} : { plan: previous.plan }),
            messageCount: previous.messageCount,
            elapsedMs: Math.max(0, now - previous.time),
            prefixHeld: prefixHeld(rt, previous, parts),
          },
        }),
  }
  const plan = prepared.planCache(input)
  facts.previous = {
    ...(plan === undefined ? {} : { plan }),
    messageCount: parts.messages.length,
    time: now,
    ...(parts.system === undefined ? {} : { system: parts.system }),
    ...(parts.tools === undefined ? {} : { tools: parts.tools }),
    messages: parts.messages,
  }
  if (plan === undefined) return undefined
  rt.session.append('request/cache', { turn: at.turn, step: at.step, plan })
  return plan
}
