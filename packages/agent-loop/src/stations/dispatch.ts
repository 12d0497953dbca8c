import { BlockAssembler, type GenerateOptions, type PreparedLlmCall, type StreamChunk } from '@bridle/llm'
import { service, type AgentRuntime } from './runtime.js'
import { verifyRequest } from './verify-request.js'

/** Which request of a step is dispatched: the attempt, and `compaction` for a summary request. */
export interface DispatchPoint {
  readonly turn: number
  readonly step: number
  readonly attempt: number
  readonly purpose?: 'compaction'
}

/** The streamed answer of one dispatch: the assembled blocks and the seqs of its `assistant/chunk` events. */
export interface RecordedAnswer {
  readonly assembler: BlockAssembler
  readonly chunkSeqs: number[]
}

/**
 * The end of a step's pipeline (docs/step-pipeline.md#step-stations-s7-to-s10): optional dispatch-time verification,
 * the `request/digest`, and dispatch, with no await in between (nothing can be appended between proving and
 * sending); then every chunk recorded as `assistant/chunk` as it arrives. A conversation request's digest continues
 * the chain a resumed or seeded log already records (`digestedPrefix`); a summary request's is computed whole.
 * Throws when the signal aborts.
 */
export async function dispatchRecorded(
  rt: AgentRuntime,
  request: GenerateOptions,
  prepared: PreparedLlmCall | undefined,
  at: DispatchPoint,
  signal: AbortSignal,
): Promise<RecordedAnswer> {
  const { turn, step, attempt, purpose } = at
  if (rt.config.verifyRequests) verifyRequest(rt.session, request, turn, step, attempt)
  const digest =
    purpose === 'compaction'
      ? rt.requests.digester.digest(request)
      : rt.requests.digester.digest(request, rt.session.digestedPrefix(request.messages))
  rt.session.append('request/digest', {
    turn,
    step,
    attempt,
    algorithm: 'sha256',
    ...(purpose !== undefined ? { purpose } : {}),
    ...digest,
  })
  const stream = prepared ? prepared.stream(request) : service(rt, 'llm').stream(request)
  signal.throwIfAborted()

  const assembler = new BlockAssembler()
  const chunkSeqs: number[] = []
  for await (const chunk of stream as AsyncIterable<StreamChunk>) {
    signal.throwIfAborted()
    chunkSeqs.push(rt.session.append('assistant/chunk', { turn, step, chunk }).seq)
    assembler.push(chunk)
  }
  signal.throwIfAborted()
  return { assembler, chunkSeqs }
}
