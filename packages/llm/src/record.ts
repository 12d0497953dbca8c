/**
 * Whether `value` is a JSON-style object: not `null`, not an array. The one structural check every package uses before
 * reading fields of untyped data (wire payloads, stored events, configs).
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
