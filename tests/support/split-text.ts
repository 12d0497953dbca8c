/**
 * `text` split at `cuts` (each taken modulo the text's length + 1, sorted, deduplicated; empty pieces allowed): the
 * random chunkings that property tests of streams draw.
 */
export function splitAt(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  const parts: string[] = []
  let last = 0
  for (const p of points) {
    parts.push(text.slice(last, p))
    last = p
  }
  parts.push(text.slice(last))
  return parts
}
