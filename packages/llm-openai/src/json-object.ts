import { isRecord } from '@bridle/llm'

/** `value` as a JSON object (not `null`, not an array), else `undefined`; for reading untyped wire payloads. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined
}
