/** `value` as a JSON object (not `null`, not an array), else `undefined`; for reading untyped wire payloads. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}
