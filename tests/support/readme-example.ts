import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { vi } from 'vitest'

export interface BlockOptions {
  /** The fence's language tag (default `ts`). */
  lang?: string
  /** Only blocks under this heading (the heading line, e.g. `## In code`), up to the next heading of its level. */
  heading?: string
  /** Which of the matching blocks, from 0 (default 0). */
  index?: number
}

/**
 * The text of a fenced code block in a README, as the README has it today: README tests run this text instead of a
 * copy, so an example that drifts from the code fails its test. Throws, naming the README, when there is no such block.
 */
export function readmeBlock(readme: URL, options: BlockOptions = {}): string {
  const { lang = 'ts', heading, index = 0 } = options
  let text = readFileSync(readme, 'utf8')
  if (heading !== undefined) {
    const lines = text.split('\n')
    const start = lines.indexOf(heading)
    if (start === -1) throw new Error(`${fileURLToPath(readme)} has no heading "${heading}"`)
    const level = /^#+/.exec(heading)?.[0] ?? '#'
    const end = lines.findIndex((line, i) => i > start && new RegExp(`^#{1,${level.length}} `).test(line))
    text = lines.slice(start + 1, end === -1 ? undefined : end).join('\n')
  }
  const blocks = [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => m[1]!)
  const block = blocks[index]
  if (block === undefined) {
    const where = heading === undefined ? '' : ` under "${heading}"`
    throw new Error(`${fileURLToPath(readme)} has no \`\`\`${lang} block #${index}${where} (found ${blocks.length})`)
  }
  return block
}

/**
 * Replaces `from` with `to` exactly once, so a README that drifted from what its test adapts fails loudly instead of
 * running something else.
 */
export function swapOnce(code: string, from: string, to: string): string {
  const parts = code.split(from)
  if (parts.length !== 2)
    throw new Error(`the README example should contain \`${from}\` once (found ${parts.length - 1})`)
  return parts.join(to)
}

export interface ExampleRun {
  /** The arguments of each `console.log` call the example made, in order. */
  printed: unknown[][]
  /** The module's exports (a test may append `export { … }` to reach the example's values). */
  exports: Record<string, unknown>
}

/**
 * Runs README code as an ES module, as a reader would paste it into a file of the package: TypeScript is accepted,
 * `@bridle/*` resolves to source like every test, and third-party imports resolve from the package's dependencies.
 * The module is written beside `near` (a test file's `import.meta.url`) under a random name and removed afterwards.
 * `console.log` is captured, not printed.
 */
export async function runExample(code: string, near: string): Promise<ExampleRun> {
  const file = join(dirname(fileURLToPath(near)), `.readme-example-${randomBytes(6).toString('hex')}.ts`)
  writeFileSync(file, code)
  const printed: unknown[][] = []
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args))
  try {
    const exports = (await import(/* @vite-ignore */ file)) as Record<string, unknown>
    return { printed, exports }
  } finally {
    log.mockRestore()
    rmSync(file, { force: true })
  }
}
