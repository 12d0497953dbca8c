import {
  callConfigOf,
  deepFreeze,
  LlmError,
  markLoopRequest,
  textOf,
  type GenerateOptions,
  type LlmCallConfig,
  type LlmFailure,
  type Message,
  type PreparedLlmCall,
  type UserMessage,
} from '@bridle/llm'
import { deriveEventMessage } from '@bridle/session'
import { agentWaterfall, emitAgentEvent, warn } from '../vocabulary/agent-events.js'
import { service, type AgentRuntime } from './runtime.js'
import { failureOf } from '../vocabulary/failure.js'
import type { CompactionOutcome, CompactionPlan } from '../vocabulary/types.js'
import { dispatchRecorded } from './dispatch.js'

/** Inputs of the compaction point: the step's built request and what the policy needs to judge it. */
export interface CompactionPointInput {
  turn: number
  step: number
  request: GenerateOptions
  contextWindow: number | undefined
  manual: boolean
  signal: AbortSignal
}

/**
 * The compaction point: runs `agent/compaction` for the step's built request. Returns the policy's plan, or
 * `undefined` when the request goes out as it is. Consumes the previous compaction step's outcome (a plan right
 * after a compaction step is ignored with a warning: two compaction steps in a row could loop forever). Throws
 * `TypeError` for a malformed plan; a listener's throw (say, a context-window error) is a turn error.
 */
export async function consultCompaction(
  rt: AgentRuntime,
  input: CompactionPointInput,
): Promise<CompactionPlan | undefined> {
  const { turn, step, request, contextWindow, manual, signal } = input
  const previous = rt.compaction.previous
  rt.compaction.previous = undefined
  const payload = { turn, step, request, contextWindow, manual, previous, signal }
  const plan = await agentWaterfall(rt.ctx, rt.agent, 'agent/compaction', payload, () => undefined)
  signal.throwIfAborted()
  if (plan === undefined || plan === null) return undefined
  if (previous !== undefined) {
    warn(
      rt.ctx,
      `agent "${rt.agent.id}": agent/compaction planned a compaction right after one; the request is sent as it is`,
    )
    return undefined
  }
  assertPlan(plan, request.messages.length)
  return plan
}

function assertPlan(plan: CompactionPlan, messages: number): void {
  const fail = (what: string) => {
    throw new TypeError(`agent/compaction returned an invalid plan: ${what}`)
  }
  if (typeof plan !== 'object') fail('expected an object or undefined')
  if (!Number.isSafeInteger(plan.count) || plan.count < 1 || plan.count > messages) {
    fail(`count must be an integer from 1 to ${messages} (the request's messages), got ${String(plan.count)}`)
  }
  if (!isUserMessage(plan.instruction)) fail('instruction must be an identified user-role message')
  if (typeof plan.checkpoint !== 'function') fail('checkpoint must be a function of the summary text')
  if (plan.timeoutMs !== undefined && !(Number.isSafeInteger(plan.timeoutMs) && plan.timeoutMs > 0)) {
    fail('timeoutMs must be a positive integer')
  }
  if (
    plan.config !== undefined &&
    (typeof plan.config?.provider !== 'string' || !plan.config.provider || !plan.config.model)
  ) {
    fail('config must name a provider and a model')
  }
}

function isUserMessage(m: unknown): m is UserMessage {
  const v = m as UserMessage | undefined
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.id === 'string' &&
    v.id !== '' &&
    v.role === 'user' &&
    Array.isArray(v.content)
  )
}

/** Inputs of one compaction step. The step is open and `request` is the conversation request it replaces. */
export interface CompactionStepInput {
  turn: number
  step: number
  request: GenerateOptions
  plan: CompactionPlan
  reason: 'threshold' | 'manual'
  signal: AbortSignal
}

/**
 * One compaction step (its `step/start` is already appended): `request/compaction`, the summary request built from
 * the conversation request's system, tools and first `count` messages plus the instruction — verified, digested
 * (`purpose: 'compaction'`) and dispatched like any request, its chunks logged — then, for a non-empty summary, one
 * `user/message` checkpoint that replaces those messages, citing them, the record and the chunks. A summary request
 * that fails, times out or returns no text leaves the history untouched: the outcome says why. Throws only when the
 * turn's signal aborts, or for a policy bug (a checkpoint that is not a user message); emits `agent/compacted`.
 */
export async function runCompaction(rt: AgentRuntime, input: CompactionStepInput): Promise<CompactionOutcome> {
  const { request, plan, signal } = input
  const shadowed = shadowedNodes(rt, request.messages, plan.count)
  const linked = linkedSignal(signal, plan.timeoutMs)
  let outcome: CompactionOutcome
  try {
    outcome = await summarize(rt, input, shadowed, linked)
  } finally {
    linked.dispose()
  }
  rt.compaction.previous = outcome
  emitAgentEvent(rt.ctx, rt.agent, 'agent/compacted', { outcome })
  return outcome
}

async function summarize(
  rt: AgentRuntime,
  input: CompactionStepInput,
  shadowed: readonly number[],
  linked: LinkedSignal,
): Promise<CompactionOutcome> {
  const { turn, step, request, plan, reason, signal } = input
  const failed = (failure: LlmFailure): CompactionOutcome => ({ kind: 'failed', turn, step, reason, failure })
  const proposed = plan.config ?? callConfigOf(request)
  let prepared: PreparedLlmCall | undefined
  try {
    prepared = await service(rt, 'llm').prepareCall(proposed, linked.signal)
  } catch (error) {
    signal.throwIfAborted()
    if (!(error instanceof LlmError && error.code === 'NO_ADAPTER')) return failed(linked.failure() ?? failureOf(error))
  }
  signal.throwIfAborted()
  const config: LlmCallConfig = prepared?.config ?? deepFreeze(structuredClone(callConfigOf(proposed)))
  const flags = prepared?.adapterDefaults
  const adapterDefaults =
    flags && (flags.reasoningEffort === true || flags.maxTokens === true) ? { adapterDefaults: flags } : {}
  const record = rt.session.append('request/compaction', {
    turn,
    step,
    reason,
    count: plan.count,
    config,
    ...adapterDefaults,
    instruction: plan.instruction,
  })
  const messages: readonly Message[] = Object.freeze([...request.messages.slice(0, plan.count), plan.instruction])
  const summaryRequest = markLoopRequest(
    Object.freeze({
      ...config,
      messages,
      ...(request.system !== undefined ? { system: request.system } : {}),
      ...(request.tools !== undefined ? { tools: request.tools } : {}),
      sessionId: rt.session.id,
      signal: linked.signal,
      purpose: 'compaction',
    }) as GenerateOptions,
  )
  const { assembler, chunkSeqs } = await dispatchRecorded(
    rt,
    summaryRequest,
    prepared,
    { turn, step, attempt: 1, purpose: 'compaction' },
    signal,
  )
  const finish = assembler.finish
  if (finish.kind === 'error' || finish.kind === 'aborted') return failed(linked.failure() ?? finish.failure)
  const summary = textOf(assembler.blocks().filter((b) => b.type === 'text')).trim()
  if (summary === '') return failed({ message: 'the summary request returned no text', code: 'EMPTY_SUMMARY' })

  const checkpoint = plan.checkpoint(summary)
  if (!isUserMessage(checkpoint)) {
    throw new TypeError('agent/compaction plan.checkpoint() must return an identified user-role message')
  }
  const event = rt.session.append('user/message', checkpoint, {
    surfaceOp: { op: 'replace', start: shadowed[0]!, end: shadowed[shadowed.length - 1]! },
    sourceEventSeqs: [...shadowed, record.seq, ...chunkSeqs],
  })
  return { kind: 'compacted', turn, step, reason, checkpointSeq: event.seq, replacedMessages: plan.count, summary }
}

/**
 * The surface nodes behind the request's first `count` messages, from the first node through the node of message
 * `count`, empty assistant messages between them included (a replace must cite every node it shadows).
 */
function shadowedNodes(rt: AgentRuntime, messages: readonly Message[], count: number): number[] {
  const events = rt.session.events
  const shadowed: number[] = []
  let matched = 0
  for (const seq of rt.session.surface.nodes) {
    if (matched === count) break
    shadowed.push(seq)
    const message = deriveEventMessage(events[seq]!)
    if (message === null) continue
    if (message !== messages[matched]) {
      throw new TypeError(
        `agent "${rt.agent.id}": the step's request does not match the session surface at message ${matched + 1}`,
      )
    }
    matched++
  }
  return shadowed
}

interface LinkedSignal {
  readonly signal: AbortSignal
  /** The failure to report when the timeout (not the turn) ended the request. */
  failure(): LlmFailure | undefined
  dispose(): void
}

/** A signal that aborts with the turn, or after `timeoutMs` on its own. */
function linkedSignal(turn: AbortSignal, timeoutMs: number | undefined): LinkedSignal {
  const controller = new AbortController()
  let timedOut = false
  const onAbort = () => controller.abort(turn.reason)
  turn.addEventListener('abort', onAbort, { once: true })
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true
          controller.abort(new LlmError(`the summary request timed out after ${timeoutMs} ms`, 'TIMEOUT'))
        }, timeoutMs)
  return {
    signal: controller.signal,
    failure: () =>
      timedOut && !turn.aborted
        ? { message: `the summary request timed out after ${timeoutMs} ms`, code: 'TIMEOUT' }
        : undefined,
    dispose() {
      turn.removeEventListener('abort', onAbort)
      if (timer !== undefined) clearTimeout(timer)
    },
  }
}
