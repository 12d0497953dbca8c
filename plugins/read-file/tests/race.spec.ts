/**
 * Confinement under a race: a child process keeps swapping a directory inside the workspace for a symlink to a
 * directory outside it, while `read_file` reads a file through that directory. A check-then-open implementation reads
 * the outside file in a fraction of the calls; the descriptor check must refuse every one of them.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentAt, load, read, text } from './harness.js'

/** Calls made while the swapper runs: bounded to a few seconds in `pnpm test`; `pnpm test:stress` sets BRIDLE_STRESS=1. */
const CALLS = process.env.BRIDLE_STRESS === '1' ? 30_000 : 3_000

let base: string
let ws: string
let swapper: ChildProcess | undefined

/** The swapper: renames `d` (a real directory) and `d.lnk` (a symlink to the outside) in turn, forever. */
const SWAPPER = `
const { renameSync } = require('node:fs')
const [d, dir, lnk] = process.argv.slice(1)
process.stdout.write('ready\\n')
for (;;) {
  try { renameSync(d, dir); renameSync(lnk, d); renameSync(d, lnk); renameSync(dir, d) } catch {}
}
`

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'bridle-readfile-race-')))
  ws = join(base, 'ws')
  const outside = join(base, 'outside')
  await mkdir(join(ws, 'd'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(ws, 'd', 'secret.txt'), 'inside decoy\n')
  await writeFile(join(outside, 'secret.txt'), 'TOP-SECRET outside\n')
  await symlink(outside, join(ws, 'd.lnk'))
})

afterAll(async () => {
  await stopSwapper()
  await rm(base, { recursive: true, force: true })
})

/** Kills the swapper (by its own handle) and waits until it is gone. */
async function stopSwapper(): Promise<void> {
  const child = swapper
  swapper = undefined
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

function startSwapper(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', SWAPPER, join(ws, 'd'), join(ws, 'd.dir'), join(ws, 'd.lnk')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.stdout!.once('data', () => resolve(child))
  })
}

describe('read_file confinement under a racing symlink swap', () => {
  it(`never returns the outside file in ${CALLS} calls while a directory is swapped for a symlink`, async () => {
    const { root } = load()
    const agent = agentAt(ws)
    swapper = await startSwapper()
    const outcomes = { inside: 0, leaked: 0, refusedBeforeOpen: 0, refusedAfterOpen: 0, missing: 0, other: [] as string[] }
    for (let i = 0; i < CALLS; i++) {
      const r = await read(root, { path: 'd/secret.txt' }, agent)
      const body = text(r)
      if (body.includes('TOP-SECRET')) outcomes.leaked++
      else if (!r.isError && body.includes('inside decoy')) outcomes.inside++
      else if (r.error?.info?.code === 'OUTSIDE_WORKSPACE' && body.includes('while it was being opened')) outcomes.refusedAfterOpen++
      else if (r.error?.info?.code === 'OUTSIDE_WORKSPACE') outcomes.refusedBeforeOpen++
      else if (r.error?.info?.code === 'NOT_FOUND') outcomes.missing++
      else outcomes.other.push(body)
    }
    await stopSwapper()
    // The race really ran: some calls saw the real directory and some saw the symlink (and were refused).
    expect(outcomes.inside, JSON.stringify(outcomes)).toBeGreaterThan(0)
    expect(outcomes.refusedBeforeOpen + outcomes.refusedAfterOpen, JSON.stringify(outcomes)).toBeGreaterThan(0)
    expect(outcomes.leaked, JSON.stringify(outcomes)).toBe(0)
    expect(outcomes.other).toEqual([])
  })
})
