import { callId as toCallId, textOf, type ContentBlock, type UserMessage } from '@bridle/llm'
import { waterfall } from '@bridle/scope'
import type { Context } from 'cordis'
import { parseRawArguments, snapshotDirectArguments, validateArguments } from './arguments.js'
import type { CompiledTool } from './definition.js'
import { ToolNotFoundError } from './errors.js'
import { observe } from './observe.js'
import {
  abortedBeforeDispatchOutcome,
  abortedOutcome,
  errorOutcome,
  finalResult,
  normalizeReturn,
  recordableOutcome,
  snapshotContent,
  thrownOutcome,
  type Outcome,
} from './result.js'
import type {
  PostToolDecision,
  PreparedToolCall,
  PreToolDecision,
  ToolAgent,
  ToolExecution,
  ToolExecutionInput,
  ToolExecutionResult,
  ToolReturn,
  ToolRunContext,
} from './types.js'

/** What the pipeline needs from the registry: where to dispatch hooks, the carrier for an agent, tool lookup. */
export interface PipelineHost {
  readonly hookContext: Context
  carrier(agent: ToolAgent | undefined): object
  resolve(name: string, agent: ToolAgent | undefined): CompiledTool | undefined
}

/** True for an identified user-role message (what `deferContext` and decisions may hand over). */
function isIdentifiedUserMessage(value: unknown): value is UserMessage {
  if (typeof value !== 'object' || value === null) return false
  const m = value as { id?: unknown; role?: unknown; content?: unknown }
  return typeof m.id === 'string' && m.id.length > 0 && m.role === 'user' && Array.isArray(m.content)
}

function checkInput(value: ToolExecutionInput): void {
  if (typeof value !== 'object' || value === null) throw new TypeError('tool execution input must be an object')
  const input = value as { callId?: unknown; name?: unknown; signal?: unknown; rawArguments?: unknown }
  if (typeof input.callId !== 'string' || input.callId === '')
    throw new TypeError('tool execution input needs a non-empty string callId')
  if (typeof input.name !== 'string') throw new TypeError(`tool call "${input.callId}" needs a string tool name`)
  if (!(input.signal instanceof AbortSignal)) throw new TypeError(`tool call "${input.callId}" needs an AbortSignal`)
  const hasRaw = Object.hasOwn(input, 'rawArguments') && input.rawArguments !== undefined
  const hasDirect = Object.hasOwn(input, 'arguments')
  if (hasRaw === hasDirect) {
    throw new TypeError(`tool call "${input.callId}" needs exactly one of rawArguments (a model's text) or arguments`)
  }
  if (hasRaw && typeof input.rawArguments !== 'string')
    throw new TypeError(`tool call "${input.callId}" rawArguments must be a string`)
}

/**
 * Reads the arguments of a call for `tool` (stage 3) without running any hook. Shared by `prepare` and by
 * `executionMode`, which must agree on what "valid" means.
 */
export function readArguments(tool: CompiledTool, input: ToolExecutionInput) {
  const read =
    typeof input.rawArguments === 'string'
      ? parseRawArguments(input.rawArguments)
      : snapshotDirectArguments(input.arguments)
  return read.ok ? validateArguments(tool, read.value) : read
}

/** One call moving through the pipeline; the staged form the scheduler drives (docs/tool-calls.md#the-staged-form). */
class ToolCall implements PreparedToolCall {
  stage: 'dispatch' | 'post' | 'final' = 'final'
  execution!: ToolExecution
  private outcome: Outcome | undefined
  private readonly deferred: UserMessage[] = []
  private concluded = false
  private bodyStarted = false
  private dispatchState: 'idle' | 'running' | 'settled' = 'idle'
  private finalized = false

  constructor(
    private readonly host: PipelineHost,
    private readonly tool: CompiledTool | undefined,
    private readonly signal: AbortSignal,
  ) {}

  /** Builds the one frozen `exec` object every hook and the body of this call receive. */
  bind(input: ToolExecutionInput, args: unknown): void {
    const deferred = this.deferred
    const self = this
    const exec: ToolRunContext = {
      callId: toCallId(input.callId),
      name: input.name,
      arguments: args,
      ...(typeof input.rawArguments === 'string' ? { rawArguments: input.rawArguments } : {}),
      ...(input.agent !== undefined ? { agent: input.agent } : {}),
      signal: input.signal,
      deferContext(message: UserMessage): void {
        if (self.finalized)
          throw new Error(`tool call "${input.callId}" has already finished; deferContext is too late`)
        if (!isIdentifiedUserMessage(message)) {
          throw new TypeError(
            `tool call "${input.callId}": deferContext needs an identified user message (with id, role 'user', content)`,
          )
        }
        deferred.push(message)
      },
      concludeTurn(): void {
        self.concluded = true
      },
    }
    this.execution = Object.freeze(exec)
  }

  end(stage: 'post' | 'final', outcome: Outcome): this {
    this.stage = stage
    this.outcome = outcome
    return this
  }

  private get exec(): ToolRunContext {
    return this.execution as ToolRunContext
  }

  async dispatch(): Promise<void> {
    if (this.stage !== 'dispatch')
      throw new Error(`tool call "${this.execution.callId}" is not in the dispatch stage (stage ${this.stage})`)
    if (this.dispatchState !== 'idle') throw new Error(`tool call "${this.execution.callId}" was already dispatched`)
    this.dispatchState = 'running'
    const tool = this.tool!
    let body: Promise<ToolReturn> | undefined
    const run = (): Promise<ToolReturn> => {
      if (body === undefined) {
        this.bodyStarted = true
        body = (async () => tool.definition.execute(this.exec.arguments, this.exec))()
      }
      return body
    }
    try {
      const value = await waterfall(
        this.host.hookContext,
        this.host.carrier(this.exec.agent),
        'tools/execute',
        this.exec,
        run,
      )
      this.outcome = normalizeReturn(tool.name, value)
    } catch (e) {
      this.outcome = thrownOutcome(e)
    }
    // A wrapper may return without awaiting the body; never abandon a body that started.
    if (body !== undefined)
      await body.then(
        () => undefined,
        () => undefined,
      )
    this.dispatchState = 'settled'
  }

  async finalize(): Promise<ToolExecutionResult> {
    if (this.finalized) throw new Error(`tool call "${this.execution.callId}" was already finalized`)
    if (this.stage === 'dispatch' && this.dispatchState !== 'settled') {
      throw new Error(`tool call "${this.execution.callId}" must be dispatched and settled before finalize()`)
    }
    // Closed before the first await: a racing second finalize() rejects, and a context deferred from here on
    // (post-execute already sees the interim result) throws instead of being dropped silently.
    this.finalized = true
    let outcome = this.outcome!
    let contexts: UserMessage[] = [...this.deferred]
    if (this.stage !== 'final') {
      ;({ outcome, contexts } = await this.postExecute(outcome))
    }
    if (!outcome.isError && this.signal.aborted)
      outcome = this.bodyStarted ? abortedOutcome() : abortedBeforeDispatchOutcome()
    outcome = recordableOutcome(this.exec.name, this.exec.callId, outcome)
    const result = finalResult(outcome, contexts, this.concluded)
    observe(this.host.hookContext, this.host.carrier(this.exec.agent), 'tools/result', [this.exec, result])
    return result
  }

  /** Stage 7: `tools/post-execute` may accept (optionally replacing content) or block. */
  private async postExecute(outcome: Outcome): Promise<{ outcome: Outcome; contexts: UserMessage[] }> {
    const deferred = [...this.deferred]
    const interim = finalResult(outcome, deferred, this.concluded)
    let decision: PostToolDecision
    try {
      decision = await waterfall(
        this.host.hookContext,
        this.host.carrier(this.exec.agent),
        'tools/post-execute',
        this.exec,
        interim,
        () => Promise.resolve<PostToolDecision>({ kind: 'accept' }),
      )
    } catch (e) {
      return { outcome: thrownOutcome(e), contexts: deferred }
    }
    const name = this.exec.name
    const invalid = (what: string) => ({
      outcome: errorOutcome(`tools/post-execute returned ${what} for tool "${name}"`),
      contexts: deferred,
    })
    if (typeof decision !== 'object' || decision === null) return invalid('an invalid decision')
    const extra = decision.additionalContexts
    if (extra !== undefined && !(Array.isArray(extra) && extra.every(isIdentifiedUserMessage))) {
      return invalid('additionalContexts that are not identified user messages')
    }
    if (decision.kind === 'accept') {
      let next = outcome
      if (decision.content !== undefined) {
        const content = Array.isArray(decision.content) ? snapshotContent(decision.content) : undefined
        if (content === undefined) return invalid('content that is not a lossless JSON content-block array')
        next = { ...outcome, content }
      }
      return { outcome: next, contexts: [...deferred, ...(extra ?? [])] }
    }
    if (decision.kind === 'block') {
      const feedback = Array.isArray(decision.feedback) ? snapshotContent(decision.feedback) : undefined
      if (feedback === undefined) return invalid('block feedback that is not a lossless JSON content-block array')
      const blocked: Outcome = {
        content: feedback,
        isError: true,
        error: { message: textOf(feedback as ContentBlock[], '\n') },
      }
      return { outcome: blocked, contexts: [...(extra ?? [])] }
    }
    return invalid('an invalid decision')
  }
}

function isPreDecision(value: unknown): value is PreToolDecision {
  if (typeof value !== 'object' || value === null) return false
  const d = value as { kind?: unknown; reason?: unknown }
  return d.kind === 'allow' || (d.kind === 'deny' && typeof d.reason === 'string')
}

/**
 * Runs stages 1–5 of one call (docs/tool-calls.md#the-per-call-pipeline): abort check, tool resolution for the agent's
 * scope, arguments, `tools/pre-execute`, and the abort check after it. Tool errors become the call's outcome; only
 * malformed input (an internal failure) rejects.
 */
export async function prepareCall(host: PipelineHost, input: ToolExecutionInput): Promise<PreparedToolCall> {
  checkInput(input)
  const tool = input.signal.aborted ? undefined : host.resolve(input.name, input.agent)
  const call = new ToolCall(host, tool, input.signal)
  if (input.signal.aborted) {
    call.bind(input, undefined)
    return call.end('final', abortedBeforeDispatchOutcome())
  }
  if (tool === undefined) {
    call.bind(input, undefined)
    return call.end('final', thrownOutcome(new ToolNotFoundError(input.name)))
  }
  let args: ReturnType<typeof readArguments> | { ok: false; error: unknown }
  try {
    args = readArguments(tool, input)
  } catch (e) {
    args = { ok: false as const, error: e }
  }
  call.bind(input, args.ok ? args.value : undefined)
  if (!args.ok) return call.end('final', thrownOutcome(args.error))

  let decision: unknown
  try {
    decision = await waterfall(host.hookContext, host.carrier(input.agent), 'tools/pre-execute', call.execution, () =>
      Promise.resolve<PreToolDecision>({ kind: 'allow' }),
    )
  } catch (e) {
    return call.end('final', thrownOutcome(e))
  }
  if (!isPreDecision(decision)) {
    return call.end('final', errorOutcome(`tools/pre-execute returned an invalid decision for tool "${tool.name}"`))
  }
  if (decision.kind === 'deny') return call.end('post', errorOutcome(decision.reason))
  if (input.signal.aborted) return call.end('post', abortedBeforeDispatchOutcome())
  call.stage = 'dispatch'
  return call
}
