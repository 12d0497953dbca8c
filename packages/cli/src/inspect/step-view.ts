import type { Message } from '@bridle/llm'
import { textOf } from '@bridle/llm'
import { reconstructRequest, type SessionEvent } from '@bridle/session'
import { describeContent, describeEvent, describeSource, toolNamesByCall } from './describe.js'
import { attributeSections, sectionsFromManifest, type AttributedSection, type KnownSection } from './sections.js'

interface StepSummary {
  turn: number
  step: number
  stepStartSeq: number
  requested: boolean
  toolCalls: string[]
  answer: string | undefined
  /** For a compaction step: how many messages its summary request carried, and whether its checkpoint replaced them. */
  compaction?: { count: number; replaced: boolean }
}

type TurnEndView = { kind: string; [key: string]: unknown }

export interface TurnSummary {
  turn: number
  startSeq: number
  end: { seq: number; reason: TurnEndView } | undefined
  steps: StepSummary[]
}

export interface MessageView {
  index: number
  id: string
  role: string
  source: string
  /** The seq of the event that put this message on the surface. */
  seq: number | undefined
  summary: string
}

export interface StepView {
  turn: number
  step: number
  header: {
    reason: string | undefined
    seq: number | undefined
    provider: string
    model: string
    config: Record<string, unknown>
  }
  context: Record<string, unknown> | undefined
  /** The system string as logged. */
  systemText: string
  /** The same string split back into sections: named by the header's section manifest, else by matching `known`. */
  system: AttributedSection[]
  /** Where the section names came from: the log's manifest, or the app's sections as they render now. */
  sectionNames: 'log' | 'app'
  tools: string[]
  messages: MessageView[]
  snapshot: { seq: number | undefined; sections: { name: string; text: string }[]; text: string } | undefined
  /** The events of this step, from its `step/start` to its `step/end` (or the log's end). */
  events: { seq: number; type: string; detail: string }[]
}

/** Turns and steps of a log, for the overview. */
export function summarizeTurns(events: readonly SessionEvent[]): TurnSummary[] {
  const turns: TurnSummary[] = []
  for (const event of events) {
    const data = event.data as Record<string, unknown>
    const current = turns.at(-1)
    const step = current?.steps.at(-1)
    if (event.type === 'turn/start')
      turns.push({ turn: data.turn as number, startSeq: event.seq, end: undefined, steps: [] })
    else if (event.type === 'turn/end' && current) current.end = { seq: event.seq, reason: data.reason as TurnEndView }
    else if (event.type === 'step/start' && current)
      current.steps.push({
        turn: data.turn as number,
        step: data.step as number,
        stepStartSeq: event.seq,
        requested: false,
        toolCalls: [],
        answer: undefined,
      })
    else if (event.type === 'request/digest' && step) step.requested = true
    else if (event.type === 'request/compaction' && step)
      step.compaction = { count: data.count as number, replaced: false }
    else if (event.type === 'user/message' && typeof event.surfaceOp === 'object' && step?.compaction)
      step.compaction.replaced = true
    else if (event.type === 'tool/call' && step) step.toolCalls.push(String(data.name))
    else if (event.type === 'assistant/message' && step) {
      const text = textOf((data.message as Message).content)
      if (text) step.answer = text
    }
  }
  return turns
}

/**
 * What one step's request contained, rebuilt from the log with `reconstructRequest`: header and its reason,
 * system sections (named by the header's manifest; for a log without one, by matching `known`), tools in order,
 * messages with their sources and the events that put them there, the runtime-context snapshot, and the step's
 * own events.
 */
export function stepView(
  events: readonly SessionEvent[],
  turn: number,
  step: number,
  known: readonly KnownSection[],
  options: { full?: boolean } = {},
): StepView {
  const rebuilt = reconstructRequest(events as SessionEvent[], { turn, step })
  const toolNames = toolNamesByCall(events)
  const systemText = rebuilt.header.system ?? ''
  const seqOf = new Map<string, number>()
  for (const event of events.slice(0, rebuilt.cutSeq)) {
    const data = event.data as Record<string, unknown> | null
    const message = event.type === 'user/message' ? (event.data as Message) : (data?.message as Message | undefined)
    if (event.surfaceOp !== undefined && message?.id) seqOf.set(message.id, event.seq)
  }
  const messages = rebuilt.messages.map((message, index) => ({
    index: index + 1,
    id: message.id,
    role: message.role,
    source: describeSource(message, toolNames),
    seq: seqOf.get(message.id),
    summary: describeContent(message, options.full),
  }))
  const snapshotMessage = [...rebuilt.messages]
    .reverse()
    .find((m) => m.source.kind === 'plugin' && (m.source as { plugin: string }).plugin === '@bridle/system-prompt')
  const config = rebuilt.header.config as unknown as Record<string, unknown>
  const endIndex = events.findIndex(
    (e, i) =>
      i > rebuilt.stepStartSeq &&
      (e.type === 'step/end' || e.type === 'turn/end') &&
      (e.data as { turn: number }).turn === turn,
  )
  return {
    turn,
    step,
    header: {
      reason: rebuilt.headerReason,
      seq: rebuilt.headerSeq,
      provider: String(config.provider),
      model: String(config.model),
      config,
    },
    context: rebuilt.context as Record<string, unknown> | undefined,
    systemText,
    system: rebuilt.sections
      ? sectionsFromManifest(systemText, rebuilt.sections)
      : attributeSections(systemText, known),
    sectionNames: rebuilt.sections ? 'log' : 'app',
    tools: (rebuilt.header.tools ?? []).map((t) => t.name),
    messages,
    snapshot: snapshotMessage && {
      seq: seqOf.get(snapshotMessage.id),
      sections: ((snapshotMessage.source as { sections?: { name: string; text: string }[] }).sections ?? []).map(
        (s) => ({ ...s }),
      ),
      text: textOf(snapshotMessage.content),
    },
    events: events
      .slice(rebuilt.stepStartSeq, endIndex === -1 ? events.length : endIndex + 1)
      .map((e) => ({ seq: e.seq, type: e.type, detail: describeEvent(e, toolNames) })),
  }
}
