import { z } from 'zod'

/** Whether `pattern` compiles as a JavaScript regular expression. */
function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern)
    return true
  } catch {
    return false
  }
}

const TOOL_RESULT_PLACEHOLDER = /\{\{tool-result(?::match:(.+?))?\}\}/g

/** The REGEX of every `{{tool-result:match:REGEX}}` placeholder in `text`. */
function placeholderPatterns(text: string): string[] {
  return [...text.matchAll(TOOL_RESULT_PLACEHOLDER)].flatMap((m) => (m[1] === undefined ? [] : [m[1]]))
}

/** One scripted tool call. `arguments` may be an object (serialized with JSON.stringify) or raw JSON text. */
export const ScriptedToolCallSchema = z
  .object({
    name: z.string().min(1),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default({}),
    id: z.string().min(1).optional(),
  })
  .strict()

/**
 * One model response. `text` may quote the latest tool result with `{{tool-result}}` (its whole text) or
 * `{{tool-result:match:REGEX}}` (the first capture group of REGEX in it), so a script can answer from what
 * a tool really returned instead of a canned string.
 */
export const ScriptedResponseSchema = z
  .object({
    reasoning: z.string().optional(),
    text: z
      .string()
      .refine((text) => placeholderPatterns(text).every(compiles), {
        message: 'a {{tool-result:match:REGEX}} placeholder holds an invalid regular expression',
      })
      .optional(),
    toolCalls: z.array(ScriptedToolCallSchema).optional(),
  })
  .strict()
  .refine((r) => r.reasoning !== undefined || r.text !== undefined || (r.toolCalls?.length ?? 0) > 0, {
    message: 'a scripted response needs text, reasoning or toolCalls',
  })

/** One turn: the responses for its steps, in order. `match` (a regex) picks the turn by the user's prompt. */
export const ScriptedTurnSchema = z
  .object({
    match: z.string().refine(compiles, { message: 'must be a valid regular expression' }).optional(),
    steps: z.array(ScriptedResponseSchema).min(1),
  })
  .strict()

export type ScriptedToolCall = z.infer<typeof ScriptedToolCallSchema>
export type ScriptedResponse = z.infer<typeof ScriptedResponseSchema>
export type ScriptedTurn = z.infer<typeof ScriptedTurnSchema>

/**
 * Fills `{{tool-result}}` placeholders from the latest tool result text. A placeholder that cannot be
 * filled (no tool result, or the pattern does not match) is replaced with a visible marker, never silently
 * dropped, so a broken script shows in the answer.
 */
export function fillToolResult(text: string, lastToolResult: string | undefined): string {
  return text.replace(TOOL_RESULT_PLACEHOLDER, (_whole, pattern: string | undefined) => {
    if (lastToolResult === undefined) return '[scripted: no tool result to quote]'
    if (pattern === undefined) return lastToolResult
    const found = new RegExp(pattern).exec(lastToolResult)
    return found?.[1] ?? `[scripted: /${pattern}/ not found in the tool result]`
  })
}
