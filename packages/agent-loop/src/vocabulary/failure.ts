import { errorChain, LlmError, type LlmFailure } from '@bridle/llm'
import { INTERPOLATION_ERROR_CODES } from '@bridle/system-prompt'

/**
 * The failure a turn error records: an `LlmError`'s facts unchanged; an interpolation error's message and its own code
 * (`UNKNOWN_PROMPT_VARIABLE`, `PROMPT_VARIABLE_VALUE`, `PROMPT_TEMPLATE`: what the author wrote is wrong, so the turn
 * says which way); any other error's message (with its causes) and `UNKNOWN` — a `HarnessError` included, whose
 * code (`INVARIANT`) `agent/error` carries.
 */
export function failureOf(error: unknown): LlmFailure {
  if (error instanceof LlmError) return error.failure
  const code = (error as { code?: unknown } | null)?.code
  return {
    message: errorChain(error),
    code: typeof code === 'string' && INTERPOLATION_ERROR_CODES.has(code) ? code : 'UNKNOWN',
  }
}
