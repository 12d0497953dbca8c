import { LlmError, type LlmFailure, type ToolCallBlock } from '@bridle/llm'
import { renderPromptSpans, type PromptAssembly, type RenderedPrompt } from '@bridle/system-prompt'
import { agentWaterfall } from '../vocabulary/agent-events.js'
import { buildRequest } from './build-request.js'
import { consultCompaction, runCompaction } from './compaction.js'
import { dispatchRecorded } from './dispatch.js'
import { runToolCalls } from './tool-calls.js'
import { service, type AgentRuntime } from './runtime.js'
import type { StepEnding } from '../vocabulary/types.js'

/**
 * One opened step after its user messages are durable: the attempt loop of stations S8–S10, the
 * stream, the assistant message and the tool calls. Returns `completed` (no tool calls, or a tool
 * result concluded the turn), `max-tokens`, or `null` (tool results are owed a follow-up request).
 * A failed attempt goes to `agent/request-error`; `{kind:'retry'}` restarts it in the same step. When the
 * `agent/compaction` policy plans a compaction at the first attempt, the step becomes a compaction step instead and
 * returns `null` (the conversation request is owed, in the next step).
 */
export async function runStep(
  rt: AgentRuntime,
  assembly: PromptAssembly,
  turn: number,
  step: number,
  signal: AbortSignal,
): Promise<StepEnding> {
  let system: RenderedPrompt | undefined
  for (let attempt = 1; ; attempt++) {
    // S8: the history this request carries, captured before any await.
    signal.throwIfAborted()
    const messages = rt.session.deriveMessages()
    // S9: strict interpolation; pure, so computed once per step. The spans say which section wrote what.
    system ??= renderPromptSpans(assembly)
    // S10: header, context, frozen request.
    const built = await buildRequest(rt, {
      turn,
      step,
      tools: assembly.tools,
      system: system.text,
      sections: system.spans,
      messages,
      signal,
    })
    const { request, prepared } = built
    if (attempt === 1) {
      // The compaction point: a policy may make this a compaction step; the request then goes out in the next step.
      const contextWindow = prepared?.context?.contextWindow
      const plan = await consultCompaction(rt, { turn, step, request, contextWindow, manual: false, signal })
      if (plan !== undefined) {
        await runCompaction(rt, { turn, step, request, plan, reason: 'threshold', signal })
        return null
      }
    }
    const { assembler, chunkSeqs } = await dispatchRecorded(rt, request, prepared, { turn, step, attempt }, signal)

    const finish = assembler.finish
    if (finish.kind === 'error' || finish.kind === 'aborted') {
      const failure = (finish as { failure: LlmFailure }).failure
      const decision = await agentWaterfall(
        rt.ctx,
        rt.agent,
        'agent/request-error',
        {
          turn,
          step,
          provider: request.provider,
          failure,
          retryPolicy: prepared?.retryPolicy ?? unpreparedRetryPolicy(rt, request.provider),
          signal,
        },
        () => undefined,
      )
      signal.throwIfAborted()
      if (decision?.kind === 'retry') continue
      throw new LlmError(failure.message, failure.code, failure)
    }

    const message = assembler.message({ provider: request.provider, model: request.model })
    const usage = assembler.usage
    rt.session.append(
      'assistant/message',
      { turn, step, message, ...(usage !== undefined ? { usage } : {}) },
      { surfaceOp: 'append', sourceEventSeqs: chunkSeqs },
    )
    if (finish.kind === 'max-tokens') return 'max-tokens'
    const calls = message.content.filter((b): b is ToolCallBlock => b.type === 'tool-call')
    if (calls.length === 0) return 'completed'
    const concluded = await runToolCalls(rt, calls, turn, step, signal, (m) => rt.inbox.append('next-step', m))
    return concluded ? 'completed' : null
  }
}

/**
 * The route's current retry policy for an unprepared request (an `llm/stream` listener may have registered its adapter
 * meanwhile), or `undefined` when no adapter serves the route.
 */
function unpreparedRetryPolicy(rt: AgentRuntime, provider: string) {
  const llm = service(rt, 'llm')
  return llm.hasProvider(provider) ? llm.retryPolicy(provider) : undefined
}
