/**
 * The long-line probe at full size (`pnpm test:stress`): a page of a 512 MiB single-line file (times
 * `BRIDLE_STRESS_SCALE`, at most 1.5 GiB) read in a child whose heap is capped at 24 MB. Prints the time and memory;
 * the README quotes a run.
 */
import { fileURLToPath } from 'node:url'
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { buildChild } from '../../../tests/support/build-child.js'
import { runChild } from './long-line/run-child.js'

const MiB = 1024 * 1024
const scale = Number(process.env.BRIDLE_STRESS_SCALE ?? '1')

it('reads a page of one huge line in bounded memory (full size)', async () => {
  const bundle = await buildChild(fileURLToPath(new URL('./long-line/child.ts', import.meta.url)))
  const dir = await mkdtemp(join(tmpdir(), 'bridle-long-line-stress-'))
  const length = Math.min(1536, Math.round(512 * scale)) * MiB
  try {
    const file = join(dir, 'one-line.txt')
    const handle = await open(file, 'w')
    const chunk = Buffer.alloc(8 * MiB, 'q')
    for (let written = 0; written < length; written += chunk.length) await handle.write(chunk)
    await handle.write('\n')
    await handle.close()
    const run = await runChild(bundle, file, 24)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const result = JSON.parse(run.stdout) as { first: string; heapUsed: number; rss: number; ms: number }
    expect(result.first.endsWith(`… [line truncated: ${length} characters]`)).toBe(true)
    const mb = (n: number) => Math.round(n / 1e6)
    console.log(
      `plugin-read-file stress long line: ${JSON.stringify({ lineMiB: length / MiB, ms: result.ms, heapMB: mb(result.heapUsed), rssMB: mb(result.rss) })}`,
    )
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}, 600_000)
