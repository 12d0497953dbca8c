import { z } from 'zod'

/**
 * Wraps a config field so that `null` counts as absent: a YAML key left empty (`persona:`) then takes the
 * field's default or stays unset instead of failing as "expected string, received null".
 */
export function nullAsAbsent<T extends z.ZodType>(schema: T): NullAsAbsent<T> {
  return z.preprocess((value) => (value === null ? undefined : value), schema) as unknown as NullAsAbsent<T>
}

/**
 * The type of `nullAsAbsent(schema)`: zod types a preprocess input as `unknown`, which would make every such field
 * accept anything in `ctx.plugin(Plugin, config)`. This keeps the field's own input (plus `null`) and its optionality.
 */
export type NullAsAbsent<T extends z.ZodType> = z.ZodPipe<z.ZodTransform<z.input<T>, z.input<T> | null>, T> & {
  _zod: { optin: T['_zod']['optin']; optout: T['_zod']['optout'] }
}

/**
 * An optional whole-number config field between `min` and `max` (inclusive) that takes `fallback` when absent or
 * `null`: the shape of every size, count and timeout in the plugins' configs.
 */
export function intInRange(min: number, max: number, fallback: number) {
  return nullAsAbsent(z.number().int().min(min).max(max).default(fallback))
}
