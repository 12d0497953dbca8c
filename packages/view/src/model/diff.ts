import { diffLines } from 'diff'
import { knownSecrets } from '@bridle/llm/secrets'
import type { AnySessionEvent, CachePrefixRow, ReconstructedRequest } from '@bridle/session'
import type { DiffLine, MessageView, PrefixBreak, RequestDiffView } from '../types.js'
import { breakCause, reportedSectionChanges } from './cause.js'
import { changedSpan } from './changed-span.js'
import { comparePrompts } from './prefix.js'
import { prefixBytes, promptBytes, promptText, type PromptText } from './prompt-text.js'
import { sectionAt, type systemSpans } from './sections.js'

type Spans = ReturnType<typeof systemSpans>

/** Unchanged lines kept around each change; longer unchanged runs fold into one `skipped` line. */
const CONTEXT = 2
/** Characters of unchanged text shown on each side of a cache-prefix break. */
const EXCERPT = 80

/** A line diff of two system strings, each line tagged with the section it belongs to. */
export function systemLineDiff(
  previous: string,
  current: string,
  previousSpans: Spans,
  currentSpans: Spans,
): DiffLine[] {
  const lines: DiffLine[] = []
  let prevAt = 0
  let currAt = 0
  for (const change of diffLines(previous, current)) {
    const texts = change.value.replace(/\n$/, '').split('\n')
    for (const text of texts) {
      if (change.added) {
        lines.push({ kind: 'added', text, ...named(sectionAt(currentSpans, currAt)) })
        currAt += text.length + 1
      } else if (change.removed) {
        lines.push({ kind: 'removed', text, ...named(sectionAt(previousSpans, prevAt)) })
        prevAt += text.length + 1
      } else {
        lines.push({ kind: 'same', text, ...named(sectionAt(currentSpans, currAt)) })
        prevAt += text.length + 1
        currAt += text.length + 1
      }
    }
  }
  return foldUnchanged(lines)
}

const named = (section: string | undefined) => (section === undefined ? {} : { section })

function foldUnchanged(lines: DiffLine[]): DiffLine[] {
  const near = lines.map(() => false)
  lines.forEach((line, i) => {
    if (line.kind === 'same') return
    for (let j = Math.max(0, i - CONTEXT); j <= Math.min(lines.length - 1, i + CONTEXT); j++) near[j] = true
  })
  const out: DiffLine[] = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.kind !== 'same' || near[i]) {
      out.push(lines[i]!)
      continue
    }
    let j = i
    while (j < lines.length && lines[j]!.kind === 'same' && !near[j]) j++
    out.push({ kind: 'skipped', text: `${j - i} unchanged line${j - i === 1 ? '' : 's'}` })
    i = j - 1
  }
  return out
}

/** The line of `text` holding `offset` (1-based), for a readable position. */
const lineOf = (text: string, offset: number) => text.slice(0, offset).split('\n').length

function prefixBreak(
  previous: PromptText,
  current: PromptText,
  cause: string,
  currentRebuilt: ReconstructedRequest,
): { kept: number; break?: PrefixBreak } {
  const compared = comparePrompts(previous, current)
  const broke = compared.broke
  const kept = prefixBytes(current, compared.keptChars)
  if (!broke) return { kept }
  const where =
    broke.part === 'system'
      ? `line ${lineOf(broke.current, broke.offset)}`
      : broke.part === 'tools'
        ? `tool ${toolAt(currentRebuilt, broke.current, broke.offset) ?? '(list end)'}`
        : `message ${broke.index! + 1}`
  // the word diff around the first differing character, the same one `bridle inspect --cache` prints, of texts
  // redacted whole first: a secret the cut would halve shows no part of itself (docs/security.md)
  const filter = knownSecrets()
  const span = changedSpan(filter.redact(broke.previous), filter.redact(broke.current), {
    context: EXCERPT,
    changed: EXCERPT * 2,
  }) ?? { before: '', removed: '', added: '', after: '', cutBefore: false, cutAfter: false }
  return {
    kept,
    break: {
      part: broke.part,
      byte: kept,
      before: span.before,
      removed: span.removed,
      added: span.added,
      after: span.after,
      cutBefore: span.cutBefore,
      cutAfter: span.cutAfter,
      cause,
      where,
    },
  }
}

/** The name of the tool whose JSON holds `offset` in the tools' canonical JSON. */
function toolAt(rebuilt: ReconstructedRequest, json: string, offset: number): string | undefined {
  let best: string | undefined
  for (const tool of rebuilt.header.tools ?? []) {
    const at = json.indexOf(`"name":${JSON.stringify(tool.name)}`)
    if (at !== -1 && at <= offset && (best === undefined || at > json.indexOf(`"name":${JSON.stringify(best)}`)))
      best = tool.name
  }
  return best
}

export interface DiffInput {
  events: readonly AnySessionEvent[]
  row: CachePrefixRow | undefined
  previous: { seq: number; rebuilt: ReconstructedRequest }
  current: ReconstructedRequest
  spans: { previous: Spans; current: Spans }
  /** Views of the previous request's messages, to list the ones this request no longer sends. */
  previousMessages: (index: number) => MessageView
}

/**
 * Membership in `keys` for `lookups` questions: a scan for a few (a request usually appends one or two messages to a
 * long history, and hashing all of it for each request would cost more than the scans), a set for many.
 */
function memberOf(keys: readonly string[], lookups: number): (key: string) => boolean {
  if (lookups <= 8) return (key) => keys.includes(key)
  const set = new Set(keys)
  return (key) => set.has(key)
}

/** How a request differs from the previous one: system lines, tools, messages, and where the prompt cache broke. */
export function requestDiff(input: DiffInput): RequestDiffView {
  const { events, row, previous, current } = input
  const prevText = promptText(previous.rebuilt)
  const currText = promptText(current)
  const cause =
    (row && breakCause(events, row, current, previous.rebuilt)) ?? 'the previous prompt is a prefix of this one'
  const prefix = prefixBreak(prevText, currText, cause, current)
  const totalBytes = promptBytes(currText)

  // messages equal as canonical JSON count as the same message (a rewrite that changed nothing)
  const prevKeys = prevText.messages
  const currKeys = currText.messages
  let keptCount = 0
  while (keptCount < prevKeys.length && keptCount < currKeys.length && prevKeys[keptCount] === currKeys[keptCount])
    keptCount++
  const inPrevious = memberOf(prevKeys, currKeys.length - keptCount)
  const inCurrent = memberOf(currKeys, prevKeys.length - keptCount)
  const appended: number[] = []
  for (let i = keptCount; i < currKeys.length; i++) if (!inPrevious(currKeys[i]!)) appended.push(i)
  const replaced: MessageView[] = []
  for (let i = keptCount; i < prevKeys.length; i++)
    if (!inCurrent(prevKeys[i]!)) replaced.push(input.previousMessages(i))
  const messagesKept = keptCount === prevKeys.length
  const changes = row ? reportedSectionChanges(row) : undefined

  return {
    previousSeq: previous.seq,
    previous: {
      turn: previous.rebuilt.turn,
      step: previous.rebuilt.step,
      attempt: (events[previous.seq]?.data as { attempt?: number })?.attempt ?? 1,
    },
    system: {
      kept: prevText.system === currText.system,
      lines:
        prevText.system === currText.system
          ? []
          : systemLineDiff(prevText.system, currText.system, input.spans.previous, input.spans.current),
      sections: changes ? changes.map((c) => ({ kind: c.kind, name: c.name })) : [],
    },
    tools: row?.tools
      ? {
          kept: row.tools.kept,
          added: [...row.tools.added],
          removed: [...row.tools.removed],
          moved: [...row.tools.moved],
          changed: [...row.tools.changed],
        }
      : { kept: prevText.tools === currText.tools, added: [], removed: [], moved: [], changed: [] },
    messages: {
      kept: messagesKept,
      keptCount,
      appended,
      replaced,
      ...(messagesKept ? {} : { cause: row?.messages?.kept === false ? cause : 'history changed' }),
    },
    prefix: {
      keptBytes: prefix.kept,
      totalBytes,
      share: totalBytes === 0 ? 1 : prefix.kept / totalBytes,
      ...(prefix.break ? { break: prefix.break } : {}),
    },
    ...(row?.cachedInputTokens !== undefined ? { cachedTokens: row.cachedInputTokens } : {}),
  }
}
