/**
 * Crash safety with real processes: a writer running a real agent (the agent loop, a tool, the scripted model) over
 * session-postgres is SIGKILLed at hundreds of moments — while starting, resuming, repairing, stepping, calling the
 * model or the tool — and another process resumes the session each time. After every kill the stored log must hold
 * seqs 0..n-1 exactly once, keep every event the dead writer reported durable, and keep the previously stored
 * events byte for byte. At the end the whole session must verify (`verifyDigests`) and equal the last writer's own
 * events. kill.spec.ts runs 200 kills in `pnpm test`, kill.stress.ts 1,000 in `pnpm test:stress`
 * (`BRIDLE_PG_CRASH_KILLS` overrides both); the seed is printed to reproduce a failure.
 */
import { fileURLToPath } from 'node:url'
import { createHash } from 'node:crypto'
import { verifyDigests, type SessionEvent } from '@bridle/session'
import { beforeAll, describe, expect, it } from 'vitest'
import { admin, freshSchema, pgUrl } from '../helpers.js'
import { prepareSchema } from '../stored.js'
import { buildChild } from '../../../../tests/support/build-child.js'
import { spawnChild } from './spawn.js'
import { crashSeed } from '../../../../tests/support/crash-seed.js'

const chains = 4
const seed = crashSeed()

/** A deterministic PRNG, so a failing kill plan can be replayed from the printed seed. */
function rng(state: number): () => number {
  let s = state >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

interface StoredRows {
  readonly bodies: string[]
  readonly eventCount: number
}

/**
 * The event rows and the cursor, read in one statement so in one snapshot: the server finishes a statement it
 * received before the kill, so a dead writer's last append can still commit, and two separate reads could fall on
 * either side of that commit.
 */
async function storedRows(schema: string, id: string): Promise<StoredRows> {
  const { rows } = await admin.query(
    `SELECT s.event_count, e.seq, e.body
       FROM "${schema}".sessions s LEFT JOIN "${schema}".events e ON e.session_id = s.id
      WHERE s.id = $1 ORDER BY e.seq`,
    [id],
  )
  const events = rows.filter((row: { seq: number | null }) => row.seq !== null)
  events.forEach((row: { seq: number; body: string }, index: number) => {
    if (row.seq !== index || JSON.parse(row.body).seq !== index)
      throw new Error(`seq ${row.seq} stored at index ${index} of "${id}"`)
  })
  return { bodies: events.map((row: { body: string }) => row.body), eventCount: rows[0]?.event_count ?? 0 }
}

const durableOf = (lines: readonly string[]) =>
  Math.max(0, ...lines.filter((line) => line.startsWith('durable ')).map((line) => Number(line.split(' ')[1])))

/** Declares the kill test with `count` kills (unless `BRIDLE_PG_CRASH_KILLS` says otherwise). */
export function describeKills(count: number): void {
  const kills = Number(process.env.BRIDLE_PG_CRASH_KILLS ?? count)
  let bundle: string
  beforeAll(async () => {
    bundle = await buildChild(fileURLToPath(new URL('./child.ts', import.meta.url)), { bundleDependencies: true })
  }, 120_000)

  describe(`a writer SIGKILLed at ${kills} moments of a real agent run (seed ${seed})`, () => {
    it('every resume continues from the committed events: none lost, none duplicated, none rewritten; the session verifies', async () => {
      const schema = freshSchema()
      await prepareSchema(schema)
      const perChain = Math.ceil(kills / chains)
      const config = (chain: number, label: string, prompts: number, random: () => number) => ({
        url: pgUrl,
        schema,
        session: `crash-${chain}`,
        label,
        prompts,
        leaseMs: 250,
        leaseWaitMs: 30_000,
        delayMs: 1 + Math.floor(random() * 4),
      })
      let killed = 0

      const runChain = async (chain: number) => {
        const random = rng(seed + chain)
        const id = `crash-${chain}`
        let previous: string[] = []
        for (let round = 0; round < perChain; round++) {
          const context = `chain ${chain} round ${round} (seed ${seed})`
          const child = spawnChild(bundle, 'writer', config(chain, `c${chain}r${round}`, 1_000, random))
          // One kill in ten lands at a random time since spawn (start-up, lease wait, repair); the rest after the
          // k-th checkpoint of the run, plus a few milliseconds.
          if (random() < 0.1) {
            await new Promise((r) => setTimeout(r, Math.floor(random() * 1_500)))
          } else {
            const k = Math.floor(random() * 6)
            await child.waitFor((line) => line.startsWith('ready '), 120_000)
            if (k > 0) {
              let seen = 0
              await child.waitFor((line) => line.startsWith('durable ') && ++seen >= k, 120_000)
            }
            await new Promise((r) => setTimeout(r, Math.floor(random() * 15)))
          }
          child.process.kill('SIGKILL')
          const exit = await child.exit
          expect(exit.signal, `${context}: ${exit.stderr}`).toBe('SIGKILL')
          killed++
          const stored = await storedRows(schema, id)
          expect(stored.eventCount, context).toBe(stored.bodies.length)
          expect(stored.bodies.length, `${context}: an event reported durable was lost`).toBeGreaterThanOrEqual(
            durableOf(child.lines),
          )
          expect(stored.bodies.slice(0, previous.length), `${context}: stored events were rewritten`).toEqual(previous)
          previous = stored.bodies
        }
        // A last writer resumes and finishes a turn cleanly; its events are exactly what is stored.
        const last = spawnChild(bundle, 'writer', config(chain, `c${chain}-last`, 1, random))
        const final = await last.waitFor((line) => line.startsWith('final '), 120_000)
        expect((await last.exit).code).toBe(0)
        const [, count, digest] = final.split(' ')
        const stored = await storedRows(schema, id)
        expect(stored.bodies.slice(0, previous.length)).toEqual(previous)
        expect(stored.bodies.length).toBe(Number(count))
        expect(
          createHash('sha256')
            .update(stored.bodies.map((body) => body + '\n').join(''))
            .digest('hex'),
        ).toBe(digest)
        const events = stored.bodies.map((body) => JSON.parse(body) as SessionEvent)
        const verified = verifyDigests(events)
        expect(verified.length).toBeGreaterThan(0)
        expect(verified.filter((row) => !row.ok)).toEqual([])
        expect(
          events.filter(
            (e) => e.type === 'turn/end' && (e.data as { reason: { kind: string } }).reason.kind === 'interrupted',
          ).length,
        ).toBeGreaterThan(0)
      }

      await Promise.all(Array.from({ length: chains }, (_, chain) => runChain(chain)))
      expect(killed).toBeGreaterThanOrEqual(kills)
    }, 1_800_000)
  })
}
