import { createToolResultMessage, type ToolCallBlock, type UserMessage } from '@bridle/llm'
import type { PreparedToolCall, ToolExecutionInput } from '@bridle/tools'
import type { Context } from 'cordis'
import { service, type AgentRuntime } from './runtime.js'

/** Text and error info of the synthetic result a call gets when it never started (docs/tool-calls.md#cancellation). */
const NOT_DISPATCHED_TEXT = 'Error: tool call aborted before dispatch'
const NOT_DISPATCHED_ERROR = { name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' }

/** One started call: its `tool/call` seq, its prepared execution, and whether its result can be committed. */
interface Slot {
  input: ToolExecutionInput
  callSeq: number
  prepared: PreparedToolCall
  ready: boolean
}

/** Where one step's tool calls run and whom their results go to. */
interface StepOfCalls {
  readonly turn: number
  readonly step: number
  readonly signal: AbortSignal
  /** Takes each committed result's additional contexts (they enter the next step). */
  readonly accept: (message: UserMessage) => void
}

/**
 * The tool-call scheduler (docs/tool-calls.md#the-scheduler): runs one assistant message's tool calls in groups (an
 * exclusive call is a barrier; consecutive parallel calls share a pool of `maxParallelToolCalls`
 * bodies), commits `tool/result` events strictly in model order, hands each result's contexts to
 * `accept`, and on cancellation drains started bodies and writes synthetic results for the rest.
 * Resolves `true` when a committed result concluded the turn. Rejects with the first internal failure
 * (after every started body settled); tool errors are never internal failures.
 */
export function runToolCalls(
  rt: AgentRuntime,
  calls: readonly ToolCallBlock[],
  turn: number,
  step: number,
  signal: AbortSignal,
  accept: (m: UserMessage) => void,
): Promise<boolean> {
  return new ToolScheduler(rt, calls, { turn, step, signal, accept }).run()
}

class ToolScheduler {
  private readonly rt: AgentRuntime
  private readonly calls: readonly ToolCallBlock[]
  private readonly at: StepOfCalls
  private readonly tools: Context['tools']
  /** Started calls, in model order. */
  private readonly slots: Slot[] = []
  /** Bodies still running. */
  private readonly inflight = new Set<Promise<void>>()
  /** How many of `slots` have their `tool/result` committed. */
  private committed = 0
  /** The index in `calls` of the next call to start. */
  private next = 0
  private concluded = false
  /** The first internal failure; once set, nothing more starts or commits. */
  private failure: { error: unknown } | undefined

  constructor(rt: AgentRuntime, calls: readonly ToolCallBlock[], at: StepOfCalls) {
    this.rt = rt
    this.calls = calls
    this.at = at
    this.tools = service(rt, 'tools')
  }

  async run(): Promise<boolean> {
    while (this.mayStartMore()) {
      if (this.isExclusive(this.calls[this.next]!)) await this.runExclusive()
      else await this.runParallelGroup()
    }
    await this.drain()
    this.recordNotDispatched()
    return this.concluded
  }

  /** An exclusive call is a barrier: it starts alone and commits before anything after it starts. */
  private async runExclusive(): Promise<void> {
    await this.guarded(() => this.start(this.calls[this.next]!))
    this.next++
    await this.commitAllStarted()
  }

  /**
   * Consecutive parallel calls share a pool of `maxParallelToolCalls` bodies (read at each group start). Each later
   * call is classified again right before it starts, after the pool wait: earlier results' observers may have
   * changed its mode, and a call that is no longer parallel ends the group.
   */
  private async runParallelGroup(): Promise<void> {
    const cap = this.rt.config.maxParallelToolCalls
    let first = true
    while (this.mayStartMore()) {
      while (!this.failure && this.inflight.size >= cap) await this.settleOne()
      if (!this.mayStartMore()) break
      const block = this.calls[this.next]!
      if (!first && this.tools.executionMode(this.inputOf(block)) !== 'parallel') break
      await this.guarded(() => this.start(block))
      this.next++
      first = false
      await this.guarded(() => this.commitReady())
    }
    await this.commitAllStarted()
  }

  /** Drain: every started body settles; started calls commit in model order, unless an internal failure. */
  private async drain(): Promise<void> {
    while (this.inflight.size > 0) await this.settleOne()
    this.throwIfFailed()
    await this.guarded(() => this.commitReady())
    this.throwIfFailed()
  }

  private mayStartMore(): boolean {
    return this.next < this.calls.length && !this.failure && !this.at.signal.aborted
  }

  private isExclusive(block: ToolCallBlock): boolean {
    return this.tools.executionMode(this.inputOf(block)) === 'exclusive'
  }

  private inputOf(block: ToolCallBlock): ToolExecutionInput {
    return {
      callId: block.id,
      name: block.name,
      rawArguments: block.arguments,
      agent: this.rt.agent,
      signal: this.at.signal,
    }
  }

  /** Appends the call's `tool/call`, prepares it, and starts its body when it has one to run. */
  private async start(block: ToolCallBlock): Promise<void> {
    const input = this.inputOf(block)
    const callSeq = this.appendCall(block)
    const prepared = await this.tools.prepare(input)
    const slot: Slot = { input, callSeq, prepared, ready: prepared.stage !== 'dispatch' }
    this.slots.push(slot)
    if (prepared.stage !== 'dispatch') return
    const body: Promise<void> = prepared.dispatch().then(
      () => {
        slot.ready = true
      },
      (error: unknown) => {
        slot.ready = true
        this.fail(error)
      },
    )
    const tracked = body.finally(() => this.inflight.delete(tracked))
    this.inflight.add(tracked)
  }

  /** Commits, in model order, every started call whose result is ready, stopping at the first that is not. */
  private async commitReady(): Promise<void> {
    while (!this.failure && this.committed < this.slots.length && this.slots[this.committed]!.ready) {
      const slot = this.slots[this.committed]!
      const result = await slot.prepared.finalize()
      const message = createToolResultMessage({
        callId: slot.input.callId as ToolCallBlock['id'],
        content: [...result.content],
        ...(result.isError ? { isError: true } : {}),
      })
      this.rt.session.append(
        'tool/result',
        {
          turn: this.at.turn,
          step: this.at.step,
          message,
          ...(result.error?.info ? { error: { name: result.error.info.name, code: result.error.info.code } } : {}),
          ...(result.meta !== undefined ? { meta: result.meta } : {}),
        },
        { surfaceOp: 'append', sourceEventSeqs: [slot.callSeq] },
      )
      this.committed++
      for (const context of result.additionalContexts ?? []) this.at.accept(context)
      if (result.concludesTurn) this.concluded = true
    }
  }

  /** Waits until every started call is committed (or an internal failure stops the commits). */
  private async commitAllStarted(): Promise<void> {
    while (!this.failure && this.committed < this.slots.length) await this.settleOne()
  }

  /** Waits for one in-flight body to settle, then commits what became ready. */
  private async settleOne(): Promise<void> {
    if (this.inflight.size > 0) await Promise.race(this.inflight)
    else if (this.committed < this.slots.length && !this.slots[this.committed]!.ready) {
      // Defensive: a slot that is neither ready nor in flight would wait forever.
      this.fail(new Error(`tool scheduler stalled on call "${this.slots[this.committed]!.input.callId}"`))
      return
    }
    await this.guarded(() => this.commitReady())
  }

  /** Cancellation: the calls that never started get a `tool/call` and a synthetic result, in model order. */
  private recordNotDispatched(): void {
    for (const block of this.calls.slice(this.next)) {
      const callSeq = this.appendCall(block)
      this.rt.session.append(
        'tool/result',
        {
          turn: this.at.turn,
          step: this.at.step,
          message: createToolResultMessage({ callId: block.id, content: NOT_DISPATCHED_TEXT, isError: true }),
          error: NOT_DISPATCHED_ERROR,
        },
        { surfaceOp: 'append', sourceEventSeqs: [callSeq] },
      )
    }
  }

  private appendCall(block: ToolCallBlock): number {
    const { turn, step } = this.at
    return this.rt.session.append('tool/call', {
      turn,
      step,
      callId: block.id,
      name: block.name,
      arguments: block.arguments,
    }).seq
  }

  /** Runs a scheduler stage; its throw is an internal failure, not the caller's. */
  private async guarded(stage: () => Promise<void>): Promise<void> {
    try {
      await stage()
    } catch (error) {
      this.fail(error)
    }
  }

  /** Keeps the first internal failure only. */
  private fail(error: unknown): void {
    this.failure ??= { error }
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error
  }
}
