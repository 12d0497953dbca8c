/**
 * A loop-like producer of session logs for the replay properties: turns of steps with prompts, header changes (system,
 * tools, section manifests), runtime-context snapshots, tool rounds, tool-result and history replacements, compaction
 * steps (summary request, its digest and usage, with or without a checkpoint), retried attempts and aborted steps.
 * Every dispatched request gets the digest the log says it sent, as the agent loop records it. Then a list of
 * tampering edits can be applied to a stored (JSON) copy of the log.
 */
import fc from 'fast-check'
import type { ToolSchema } from '@bridle/llm'
import {
  reconstructRequest,
  requestDigestParts,
  sectionManifest,
  Session,
  type AnySessionEvent,
  type EpochHeader,
} from '../src/index.js'
import { assistant, toolResult, user } from './helpers.js'

export interface StepPlan {
  readonly prompts: number
  readonly header: { readonly system: number; readonly tools: number; readonly manifest: boolean } | undefined
  readonly snapshot: boolean
  readonly toolRound: boolean
  readonly replaceToolResult: boolean
  readonly compaction: 'none' | 'checkpoint' | 'failed'
  readonly retry: boolean
  readonly aborted: boolean
  readonly usage: boolean
}

export const stepPlanArb: fc.Arbitrary<StepPlan> = fc.record({
  prompts: fc.nat(2),
  header: fc.option(fc.record({ system: fc.nat(2), tools: fc.nat(2), manifest: fc.boolean() }), { nil: undefined }),
  snapshot: fc.boolean(),
  toolRound: fc.boolean(),
  replaceToolResult: fc.boolean(),
  compaction: fc.constantFrom('none' as const, 'none' as const, 'checkpoint' as const, 'failed' as const),
  retry: fc.boolean(),
  aborted: fc.boolean(),
  usage: fc.boolean(),
})

export const turnsArb = fc.array(fc.array(stepPlanArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 })

const TOOLS: ToolSchema[] = [
  { name: 'read', description: 'reads', parameters: { type: 'object' } },
  { name: 'write', description: 'writes', parameters: { type: 'object' } },
  { name: 'list', description: 'lists', parameters: { type: 'object', properties: { dir: { type: 'string' } } } },
]
const toolSet = (variant: number): ToolSchema[] =>
  variant === 0 ? TOOLS.slice(0, 2) : variant === 1 ? [TOOLS[1]!, TOOLS[0]!] : TOOLS

function headerOf(plan: NonNullable<StepPlan['header']>): { header: EpochHeader; sections?: unknown } {
  const persona = `You are agent ${plan.system}.`
  const rules = plan.system === 2 ? 'Rules: none.' : 'Rules: be terse.\nAnswer briefly.'
  const system = `${persona}\n\n${rules}`
  const header: EpochHeader = { config: { provider: 'p', model: 'm' }, system, tools: toolSet(plan.tools) }
  if (!plan.manifest) return { header }
  const spans = [
    { name: 'persona', order: 0, start: 0, end: persona.length },
    { name: 'rules', order: 1, start: persona.length + 2, end: system.length },
  ]
  return { header, sections: sectionManifest(system, spans) }
}

/** Appends the digest of what the log says step `{turn, step}` (or, for a retry, the log's last step) sends now. */
function digest(s: Session, turn: number, step: number, attempt: number, purpose?: 'compaction') {
  const rebuilt = attempt > 1 ? reconstructRequest(s.events) : reconstructRequest(s.events, { turn, step })
  const parts = requestDigestParts(rebuilt.request)
  s.append('request/digest', { turn, step, attempt, algorithm: 'sha256', ...(purpose ? { purpose } : {}), ...parts })
}

/** Records a session following `turns`. */
export function produceLog(turns: readonly (readonly StepPlan[])[]): Session {
  const s = Session.create('s')
  let n = 0
  const usage = () => ({ inputTokens: 100 + n, outputTokens: 5, ...(n % 3 === 0 ? {} : { cacheReadTokens: 10 * n }) })
  turns.forEach((steps, ti) => {
    const turn = ti + 1
    s.append('turn/start', { turn })
    steps.forEach((plan, si) => {
      const step = si + 1
      s.append('step/start', { turn, step })
      for (let p = 0; p < plan.prompts || (turn === 1 && step === 1 && p === 0); p++)
        s.append('user/message', user(`prompt ${n++}`), { surfaceOp: 'append' })
      if (plan.snapshot) {
        const snapshot = { ...user(`context ${n++}`), source: { kind: 'plugin', plugin: 'ctx', form: 'snapshot' } }
        s.append('user/message', snapshot as never, { surfaceOp: 'append' })
      }
      if (s.requestHeader() === undefined || plan.header !== undefined) {
        const { header, sections } = headerOf(plan.header ?? { system: 0, tools: 0, manifest: true })
        const reason = s.requestHeader() === undefined ? 'initial' : 'change'
        s.append('request/header', { header, reason, ...(sections ? { sections } : {}) } as never)
      }
      s.append('request/context', { provider: 'p', model: 'm', contextWindow: 1000 + n })
      if (plan.replaceToolResult) {
        const target = [...s.surface.nodes].reverse().find((seq) => s.events[seq]!.type === 'tool/result')
        if (target !== undefined) {
          const data = s.events[target]!.data as unknown as { message: { content: { content: unknown }[] } }
          const message = {
            ...data.message,
            content: [{ ...data.message.content[0], content: [{ type: 'text', text: `[elided ${n++}]` }] }],
          }
          s.append('tool/result', { ...data, message } as never, {
            surfaceOp: { op: 'replace', start: target, end: target },
            sourceEventSeqs: [target],
          })
        }
      }
      const nodes = s.surface.nodes
      if (plan.compaction !== 'none' && nodes.length >= 2) {
        const count = Math.min(nodes.length, 2 + (n % 3))
        const record = s.append('request/compaction', {
          turn,
          step,
          reason: n % 2 === 0 ? 'threshold' : 'manual',
          count,
          config: { provider: 'p', model: 'small', maxTokens: 50 },
          instruction: user('Summarize the conversation above.'),
        })
        digest(s, turn, step, 1, 'compaction')
        const chunk = s.append('assistant/chunk', {
          turn,
          step,
          chunk: plan.usage ? { type: 'usage', usage: usage() } : { type: 'text-delta', index: 0, text: 'sum' },
        })
        if (plan.compaction === 'checkpoint') {
          const shadowed = nodes.slice(0, count)
          s.append('user/message', user(`Summary ${n++}`), {
            surfaceOp: { op: 'replace', start: shadowed[0]!, end: shadowed.at(-1)! },
            sourceEventSeqs: [...shadowed, record.seq, chunk.seq],
          })
        }
        s.append('step/end', { turn, step })
        return
      }
      if (plan.aborted) {
        s.append('step/end', { turn, step })
        return
      }
      digest(s, turn, step, 1)
      if (plan.retry) {
        s.append('assistant/chunk', { turn, step, chunk: { type: 'text-delta', index: 0, text: '' } })
        digest(s, turn, step, 2)
      }
      const chunk = s.append('assistant/chunk', { turn, step, chunk: { type: 'text-delta', index: 0, text: 'x' } })
      const answerUsage = plan.usage ? usage() : undefined
      if (plan.toolRound) {
        const id = `call${n++}`
        s.append(
          'assistant/message',
          {
            turn,
            step,
            message: assistant([{ type: 'tool-call', id: id as never, name: 'read', arguments: '{}' }]),
            ...(answerUsage ? { usage: answerUsage } : {}),
          },
          { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
        )
        const call = s.append('tool/call', { turn, step, callId: id as never, name: 'read', arguments: '{}' })
        s.append(
          'tool/result',
          { turn, step, message: toolResult(id, `done ${n++}`) },
          { surfaceOp: 'append', sourceEventSeqs: [call.seq] },
        )
      } else {
        s.append(
          'assistant/message',
          { turn, step, message: assistant(`answer ${n++}`), ...(answerUsage ? { usage: answerUsage } : {}) },
          { surfaceOp: 'append', sourceEventSeqs: [chunk.seq] },
        )
      }
      s.append('step/end', { turn, step })
    })
    s.append('turn/end', { turn, reason: { kind: 'completed' } })
  })
  return s
}

/** One edit of a stored log, addressed by a number the edit reduces to a position of the log. */
export type Tamper =
  | {
      readonly kind: 'digest-part'
      readonly at: number
      readonly part: 'config' | 'system' | 'tools' | 'request' | 'chain'
    }
  | { readonly kind: 'digest-step'; readonly at: number }
  | { readonly kind: 'digest-purpose'; readonly at: number }
  | { readonly kind: 'message-text'; readonly at: number }
  | { readonly kind: 'header-system'; readonly at: number }
  | { readonly kind: 'compaction-count'; readonly at: number }
  | { readonly kind: 'drop-surface-op'; readonly at: number }
  | { readonly kind: 'drop-event'; readonly at: number }
  | { readonly kind: 'digest-after-output'; readonly at: number }

export const tamperArb: fc.Arbitrary<Tamper> = fc.oneof(
  fc.record({
    kind: fc.constant('digest-part' as const),
    at: fc.nat(),
    part: fc.constantFrom('config' as const, 'system' as const, 'tools' as const, 'request' as const, 'chain' as const),
  }),
  ...(['digest-step', 'digest-purpose', 'message-text', 'header-system', 'compaction-count'] as const).map((kind) =>
    fc.record({ kind: fc.constant(kind), at: fc.nat() }),
  ),
  ...(['drop-surface-op', 'drop-event', 'digest-after-output'] as const).map((kind) =>
    fc.record({ kind: fc.constant(kind), at: fc.nat() }),
  ),
)

type Mutable = { type: string; seq: number; data: any; surfaceOp?: unknown; [key: string]: unknown }

/** A JSON copy of `events` with `tampers` applied in order (seqs renumbered after a removal or a move). */
export function tamper(events: readonly AnySessionEvent[], tampers: readonly Tamper[]): AnySessionEvent[] {
  const log = JSON.parse(JSON.stringify(events)) as Mutable[]
  const pick = (type: string | ((e: Mutable) => boolean), at: number): Mutable | undefined => {
    const matching = log.filter(typeof type === 'string' ? (e) => e.type === type : type)
    return matching.length === 0 ? undefined : matching[at % matching.length]
  }
  for (const t of tampers) {
    switch (t.kind) {
      case 'digest-part': {
        const e = pick('request/digest', t.at)
        if (e === undefined) break
        if (t.part === 'chain') e.data.messages = { ...e.data.messages, chain: '0'.repeat(64) }
        else e.data[t.part] = 'f'.repeat(64)
        break
      }
      case 'digest-step': {
        const e = pick('request/digest', t.at)
        if (e !== undefined) e.data.step = e.data.step + 7
        break
      }
      case 'digest-purpose': {
        const e = pick('request/digest', t.at)
        if (e === undefined) break
        if (e.data.purpose === 'compaction') delete e.data.purpose
        else e.data.purpose = 'compaction'
        break
      }
      case 'message-text': {
        const e = pick((x) => x.type === 'user/message' || x.type === 'assistant/message', t.at)
        const message = e?.type === 'user/message' ? e.data : e?.data.message
        if (message?.content?.[0]?.type === 'text') message.content[0].text += ' (edited)'
        break
      }
      case 'header-system': {
        const e = pick('request/header', t.at)
        if (e !== undefined) e.data.header.system = `${e.data.header.system ?? ''}!`
        break
      }
      case 'compaction-count': {
        const e = pick('request/compaction', t.at)
        if (e !== undefined) e.data.count = e.data.count + 50
        break
      }
      case 'drop-surface-op': {
        const e = pick((x) => x.surfaceOp !== undefined, t.at)
        if (e !== undefined) delete e.surfaceOp
        break
      }
      case 'drop-event': {
        if (log.length > 0) log.splice(t.at % log.length, 1)
        log.forEach((e, i) => (e.seq = i))
        break
      }
      case 'digest-after-output': {
        // a digest written after its step's first output: its request is cut before the digest
        const e = pick('request/digest', t.at)
        if (e === undefined) break
        const from = log.indexOf(e)
        const to = log.findIndex((x, i) => i > from && x.type === 'assistant/chunk')
        if (to < 0) break
        log.splice(from, 1)
        log.splice(to, 0, e)
        log.forEach((x, i) => (x.seq = i))
        break
      }
    }
  }
  return log as unknown as AnySessionEvent[]
}

/** A step with one prompt and nothing else: the base the tests spread their variations over. */
export const PLAIN_STEP = {
  prompts: 1,
  header: undefined,
  snapshot: false,
  toolRound: false,
  replaceToolResult: false,
  compaction: 'none',
  retry: false,
  aborted: false,
  usage: true,
} as const
