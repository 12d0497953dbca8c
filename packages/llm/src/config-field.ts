import { z } from 'zod'

/**
 * Wraps a config field so that `null` counts as absent: a YAML key left empty (`persona:`) then takes the
 * field's default or stays unset instead of failing as "expected string, received null".
 */
export function nullAsAbsent<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === null ? undefined : value), schema)
}
