import { createToolResultMessage, type ToolCallBlock, type UserMessage } from '@bridle/llm'
import type { PreparedToolCall, ToolExecutionInput } from '@bridle/tools'
import { service, type AgentRuntime } from './runtime.js'

/** Text and error info of the synthetic result a call gets when it never started (docs/tool-calls.md#cancellation). */
const NOT_DISPATCHED_TEXT = 'Error: tool call aborted before dispatch'
const NOT_DISPATCHED_ERROR = { name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' }

interface Slot {
  input: ToolExecutionInput
  callSeq: number
  prepared: PreparedToolCall
  ready: boolean
}

/**
 * The tool-call scheduler (docs/tool-calls.md#the-scheduler): runs one assistant message's tool calls in groups (an
 * exclusive call is a barrier; consecutive parallel calls share a pool of `maxParallelToolCalls`
 * bodies), commits `tool/result` events strictly in model order, hands each result's contexts to
 * `accept`, and on cancellation drains started bodies and writes synthetic results for the rest.
 * Resolves `true` when a committed result concluded the turn. Rejects with the first internal failure
 * (after every started body settled); tool errors are never internal failures.
 */
export async function runToolCalls(
  rt: AgentRuntime,
  calls: readonly ToolCallBlock[],
  turn: number,
  step: number,
  signal: AbortSignal,
  accept: (m: UserMessage) => void,
): Promise<boolean> {
  const tools = service(rt, 'tools')
  const slots: Slot[] = []
  const inflight = new Set<Promise<void>>()
  let committed = 0
  let concluded = false
  let failed = false
  let failure: unknown

  const fail = (error: unknown): void => {
    if (!failed) {
      failed = true
      failure = error
    }
  }
  const inputOf = (block: ToolCallBlock): ToolExecutionInput => ({
    callId: block.id,
    name: block.name,
    rawArguments: block.arguments,
    agent: rt.agent,
    signal,
  })

  const start = async (block: ToolCallBlock): Promise<void> => {
    const input = inputOf(block)
    const event = rt.session.append('tool/call', {
      turn,
      step,
      callId: block.id,
      name: block.name,
      arguments: block.arguments,
    })
    const prepared = await tools.prepare(input)
    const slot: Slot = { input, callSeq: event.seq, prepared, ready: prepared.stage !== 'dispatch' }
    slots.push(slot)
    if (prepared.stage === 'dispatch') {
      const body: Promise<void> = prepared.dispatch().then(
        () => {
          slot.ready = true
        },
        (error: unknown) => {
          slot.ready = true
          fail(error)
        },
      )
      const tracked = body.finally(() => inflight.delete(tracked))
      inflight.add(tracked)
    }
  }

  const commitReady = async (): Promise<void> => {
    while (!failed && committed < slots.length && slots[committed]!.ready) {
      const slot = slots[committed]!
      const result = await slot.prepared.finalize()
      const message = createToolResultMessage({
        callId: slot.input.callId as ToolCallBlock['id'],
        content: [...result.content],
        ...(result.isError ? { isError: true } : {}),
      })
      rt.session.append(
        'tool/result',
        {
          turn,
          step,
          message,
          ...(result.error?.info ? { error: { name: result.error.info.name, code: result.error.info.code } } : {}),
          ...(result.meta !== undefined ? { meta: result.meta } : {}),
        },
        { surfaceOp: 'append', sourceEventSeqs: [slot.callSeq] },
      )
      committed++
      for (const context of result.additionalContexts ?? []) accept(context)
      if (result.concludesTurn) concluded = true
    }
  }

  /** Waits for one in-flight body to settle, then commits what became ready. */
  const settleOne = async (): Promise<void> => {
    if (inflight.size > 0) await Promise.race(inflight)
    else if (committed < slots.length && !slots[committed]!.ready) {
      // Defensive: a slot that is neither ready nor in flight would wait forever.
      fail(new Error(`tool scheduler stalled on call "${slots[committed]!.input.callId}"`))
      return
    }
    await guarded(commitReady)
  }
  const guarded = async (fn: () => Promise<void>): Promise<void> => {
    try {
      await fn()
    } catch (error) {
      fail(error)
    }
  }

  let next = 0
  while (next < calls.length && !failed && !signal.aborted) {
    const cap = rt.loop.config.maxParallelToolCalls
    const head = calls[next]!
    if (tools.executionMode(inputOf(head)) === 'exclusive') {
      await guarded(() => start(head))
      next++
      while (!failed && committed < slots.length) await settleOne()
      continue
    }
    // A parallel group: later calls are classified again right before they start.
    let first = true
    while (next < calls.length && !failed && !signal.aborted) {
      const block = calls[next]!
      while (!failed && inflight.size >= cap) await settleOne()
      if (failed || signal.aborted) break
      // Classified at start time, after the pool wait: earlier results' observers may have changed the mode.
      if (!first && tools.executionMode(inputOf(block)) !== 'parallel') break
      await guarded(() => start(block))
      next++
      first = false
      await guarded(commitReady)
    }
    while (!failed && committed < slots.length) await settleOne()
  }

  // Drain: every started body settles; started calls commit in model order (unless an internal failure).
  while (inflight.size > 0) await settleOne()
  if (failed) throw failure
  await guarded(commitReady)
  if (failed) throw failure

  // Cancellation: the calls that never started get a tool/call and a synthetic result, in model order.
  for (let i = next; i < calls.length; i++) {
    const block = calls[i]!
    const call = rt.session.append('tool/call', {
      turn,
      step,
      callId: block.id,
      name: block.name,
      arguments: block.arguments,
    })
    rt.session.append(
      'tool/result',
      {
        turn,
        step,
        message: createToolResultMessage({ callId: block.id, content: NOT_DISPATCHED_TEXT, isError: true }),
        error: NOT_DISPATCHED_ERROR,
      },
      { surfaceOp: 'append', sourceEventSeqs: [call.seq] },
    )
  }
  return concluded
}
