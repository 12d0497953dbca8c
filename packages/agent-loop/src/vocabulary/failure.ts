import { errorChain, LlmError, type LlmFailure } from '@bridle/llm'

/** A failure code as `LlmFailure` spells them: upper case, digits and underscores. */
const FAILURE_CODE = /^[A-Z][A-Z0-9_]*$/

/**
 * The failure a turn error records: an `LlmError`'s facts unchanged; any other error's message (with its causes) and
 * its own `code` when it has one in that spelling (a `HarnessError`'s, such as `INVARIANT` for a request that fails
 * verification; `UNKNOWN_PROMPT_VARIABLE` for an unknown `{{variable}}`); else `UNKNOWN`.
 */
export function failureOf(error: unknown): LlmFailure {
  if (error instanceof LlmError) return error.failure
  const code = (error as { code?: unknown } | null)?.code
  return { message: errorChain(error), code: typeof code === 'string' && FAILURE_CODE.test(code) ? code : 'UNKNOWN' }
}
