/**
 * The racing-symlink probe shared by `race.spec.ts` (bounded) and `race.stress.ts` (full size): a child process keeps
 * swapping a directory inside the workspace for a symlink to a directory outside it, while `read_file` reads a file
 * through that directory. Returns what each call saw; a confined reader never returns the outside file.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { agentAt, load, read, text } from './harness.js'

/** What the calls of one probe saw. */
export interface RaceOutcomes {
  calls: number
  /** The real directory was read (the decoy inside). */
  inside: number
  /** The outside file came back: confinement failed. */
  leaked: number
  /** Refused by the path check before opening (the symlink was in place then). */
  refusedBeforeOpen: number
  /** Refused by the descriptor check: the swap happened between the check and the open. */
  refusedAfterOpen: number
  /** The directory was mid-swap (absent). */
  missing: number
  /** Anything else, verbatim. */
  other: string[]
}

/** The swapper: renames `d` (a real directory) and `d.lnk` (a symlink to the outside) in turn, forever. */
const SWAPPER = `
const { renameSync } = require('node:fs')
const [d, dir, lnk] = process.argv.slice(1)
process.stdout.write('ready\\n')
for (;;) {
  try { renameSync(d, dir); renameSync(lnk, d); renameSync(d, lnk); renameSync(dir, d) } catch {}
}
`

function startSwapper(ws: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', SWAPPER, join(ws, 'd'), join(ws, 'd.dir'), join(ws, 'd.lnk')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.stdout!.once('data', () => resolve(child))
  })
}

/** Kills the swapper (by its own handle) and waits until it is gone. */
async function stopSwapper(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

/** Runs `calls` reads of `d/secret.txt` while the swapper runs, in a fresh temp workspace it removes afterwards. */
export async function raceProbe(calls: number): Promise<RaceOutcomes> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'bridle-readfile-race-')))
  const ws = join(base, 'ws')
  const outside = join(base, 'outside')
  await mkdir(join(ws, 'd'), { recursive: true })
  await mkdir(outside)
  await writeFile(join(ws, 'd', 'secret.txt'), 'inside decoy\n')
  await writeFile(join(outside, 'secret.txt'), 'TOP-SECRET outside\n')
  await symlink(outside, join(ws, 'd.lnk'))
  const { root } = load()
  const agent = agentAt(ws)
  const outcomes: RaceOutcomes = {
    calls,
    inside: 0,
    leaked: 0,
    refusedBeforeOpen: 0,
    refusedAfterOpen: 0,
    missing: 0,
    other: [],
  }
  const swapper = await startSwapper(ws)
  try {
    for (let i = 0; i < calls; i++) {
      const r = await read(root, { path: 'd/secret.txt' }, agent)
      const body = text(r)
      const code = r.error?.info?.code
      if (body.includes('TOP-SECRET')) outcomes.leaked++
      else if (!r.isError && body.includes('inside decoy')) outcomes.inside++
      else if (code === 'OUTSIDE_WORKSPACE' && body.includes('while it was being opened')) outcomes.refusedAfterOpen++
      else if (code === 'OUTSIDE_WORKSPACE') outcomes.refusedBeforeOpen++
      else if (code === 'NOT_FOUND') outcomes.missing++
      else outcomes.other.push(body)
    }
  } finally {
    await stopSwapper(swapper)
    await rm(base, { recursive: true, force: true })
  }
  return outcomes
}
