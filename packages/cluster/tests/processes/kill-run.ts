/**
 * The cluster under fire: a pool of 3 worker processes (concurrency 2 each) serves 20 sessions while a front in this
 * process posts messages to them over HTTP (a quarter of them steering), and a killer SIGKILLs a worker every few
 * hundred milliseconds — mostly one that is serving a session, a random moment into its job — and starts a
 * replacement at once, so kills overlap with start-ups, resumes, repairs, turns and job completions. Afterwards
 * every message the front acknowledged must have entered its session's log exactly once and been answered by a
 * completed turn (continuing the turns the kills interrupted), no log may show two writers (see log-checks.ts), every
 * request digest must verify, and nothing may be left in the queue or the inbox. kill.spec.ts runs 200 kills in
 * `pnpm test`, kill.stress.ts 1,000 in `pnpm test:stress` (`BRIDLE_CLUSTER_KILLS` overrides both); the seed is
 * printed to reproduce a plan.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildChild } from '../../../../tests/support/build-child.js'
import { crashSeed } from '../../../../tests/support/crash-seed.js'
import { spawnChild, type RunningChild } from '../../../session-postgres/tests/processes/spawn.js'
import { startFrontApp, type FrontApp } from '../app.js'
import { admin, api, freshDb, openJobs, storedEvents } from '../helpers.js'
import { checkLog } from '../log-checks.js'

const WORKERS = 3
const SESSIONS = 20
const PER_SESSION = 6

/** A deterministic PRNG, so a kill plan can be replayed from the printed seed. */
function rng(state: number): () => number {
  let s = state >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Pooled {
  child: RunningChild
  /** Sessions the worker reported as in flight (a `start` without its `end`). */
  serving(): string[]
}

function pooled(child: RunningChild): Pooled {
  return {
    child,
    serving() {
      const open = new Map<string, number>()
      for (const line of child.lines) {
        const [word, session] = line.split(' ')
        if (word === 'start') open.set(session!, (open.get(session!) ?? 0) + 1)
        if (word === 'end') open.set(session!, (open.get(session!) ?? 0) - 1)
      }
      return [...open].filter(([, n]) => n > 0).map(([s]) => s)
    },
  }
}

/** Declares the kill test with `count` kills (unless `BRIDLE_CLUSTER_KILLS` says otherwise). */
export function describeClusterKills(count: number, seed = crashSeed()): void {
  const kills = Number(process.env.BRIDLE_CLUSTER_KILLS ?? count)
  let bundle: string
  let front: FrontApp | undefined
  beforeAll(async () => {
    bundle = await buildChild(fileURLToPath(new URL('./child.ts', import.meta.url)), { bundleDependencies: true })
  }, 180_000)
  afterAll(() => front?.stop())

  describe(`${kills} SIGKILLs across a ${WORKERS}-worker pool serving ${SESSIONS} sessions (seed ${seed})`, () => {
    it('every acknowledged message is answered exactly once, no session has two writers, every log verifies', async () => {
      const random = rng(seed)
      const db = freshDb()
      front = await startFrontApp(db, 'kill-test-token-0123456789')
      const base = front.front.url
      const call = (path: string, body: unknown) =>
        api(base, path, { method: 'POST', body: JSON.stringify(body), token: 'kill-test-token-0123456789' })
      const ids = Array.from({ length: SESSIONS }, (_, i) => `k-${i}`)
      for (const id of ids) expect((await call('/sessions', { id, cwd: '/srv/notes' })).status).toBe(201)
      const config = { ...db, concurrency: 2, latencyMs: 40, leaseMs: 1_000 }
      const spawn = () => pooled(spawnChild(bundle, 'worker', config))
      const pool: Pooled[] = Array.from({ length: WORKERS }, spawn)
      const everyone: Pooled[] = [...pool]

      // The poster: PER_SESSION messages per session, spread over the kill phase, each acknowledged or retried.
      const acked = new Map<string, string>() // message id → session
      const plan = ids.flatMap((id) => Array.from({ length: PER_SESSION }, (_, k) => ({ id, k })))
      for (let i = plan.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1))
        ;[plan[i], plan[j]] = [plan[j]!, plan[i]!]
      }
      let killing = true
      // Spread the messages over the whole kill phase (about 300 ms a kill).
      const spacing = Math.max(20, Math.floor((kills * 300) / plan.length))
      const posting = (async () => {
        for (const { id, k } of plan) {
          const message = `m-${id}-${k}`
          const target = random() < 0.25 ? 'next-step' : 'next-turn'
          const response = await call(`/sessions/${id}/messages`, { text: `note ${k} for ${id}`, id: message, target })
          expect(response.status, await response.clone().text()).toBe(202)
          acked.set(message, id)
          if (killing) await sleep(Math.floor(random() * 2 * spacing))
        }
      })()

      let midJob = 0
      for (let k = 0; k < kills; k++) {
        await sleep(50 + Math.floor(random() * 250))
        // Mostly a worker in the middle of a job: wait for one (a message may still be on its way), then a random
        // moment into it. Otherwise any worker, whatever it is doing (starting, idle, resuming).
        const aimed = random() < 0.85
        for (let waited = 0; aimed && waited < 2_000 && !pool.some((w) => w.serving().length > 0); waited += 10) {
          await sleep(10)
        }
        if (aimed) await sleep(Math.floor(random() * 60))
        const busy = pool.filter((w) => w.serving().length > 0)
        const candidates = busy.length > 0 && aimed ? busy : pool
        const index = pool.indexOf(candidates[Math.floor(random() * candidates.length)]!)
        const victim = pool[index]!
        if (victim.serving().length > 0) midJob++
        victim.child.process.kill('SIGKILL')
        const exit = await victim.child.exit
        expect(exit.signal, exit.stderr).toBe('SIGKILL')
        pool[index] = spawn()
        everyone.push(pool[index]!)
      }
      killing = false
      await posting

      // Every message delivered, every job done.
      await expect
        .poll(
          async () => {
            const { rows } = await admin.query(
              `SELECT count(*)::int AS n FROM "${db.schema}".messages WHERE delivered_seq IS NULL AND rejected IS NULL`,
            )
            return { waiting: rows[0].n, jobs: (await openJobs(db)).length }
          },
          { timeout: 120_000, interval: 250 },
        )
        .toEqual({ waiting: 0, jobs: 0 })
      for (const worker of pool) worker.child.process.kill('SIGTERM')
      for (const worker of pool) {
        const exit = await worker.child.exit
        expect(exit.code, `${exit.stderr}\n${worker.child.lines.join('\n')}`).toBe(0)
      }

      const { rows: refused } = await admin.query(
        `SELECT count(*)::int AS n FROM "${db.schema}".messages WHERE rejected IS NOT NULL`,
      )
      expect(refused[0].n).toBe(0)
      let interrupted = 0
      let continued = 0
      let verified = 0
      const problems: string[] = []
      for (const id of ids) {
        const report = checkLog(id, await storedEvents(db, id))
        problems.push(...report.problems)
        interrupted += report.interruptedTurns
        continued += report.continuationTurns
        verified += report.requestsVerified
        for (const [message, session] of acked) {
          if (session !== id) continue
          const times = report.entered.get(message) ?? 0
          if (times !== 1) problems.push(`message "${message}" entered session "${id}" ${times} times`)
          else if (!report.answered.has(message))
            problems.push(`message "${message}" of session "${id}" was never answered`)
        }
      }
      expect(problems).toEqual([])
      expect(acked.size).toBe(plan.length)
      const stats = `${kills} kills (${midJob} while serving a session), ${interrupted} interrupted turns, ${continued} continued, ${verified} requests verified, ${everyone.length} worker processes`
      process.stdout.write(`cluster kill test: ${stats}\n`)
      expect(midJob).toBeGreaterThan(kills / 2)
      expect(interrupted).toBeGreaterThan(0)
    }, 1_800_000)
  })
}
