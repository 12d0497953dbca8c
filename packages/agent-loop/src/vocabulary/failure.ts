import { errorChain, LlmError, type LlmFailure } from '@bridle/llm'

/** The failure a turn error records: an `LlmError`'s facts unchanged, else the error chain as `UNKNOWN`. */
export function failureOf(error: unknown): LlmFailure {
  if (error instanceof LlmError) return error.failure
  return { message: errorChain(error), code: 'UNKNOWN' }
}
