// session-postgres beside session-jsonl: sustained append throughput (one session, 100 concurrent sessions),
// reloading a 50,000-event session, and a takeover's time from lease expiry to the new owner's first event.
// The PostgreSQL server is a throwaway embedded one with fsync on, so both backends pay for durability.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { llm, pairedRatio, quick, session, sessionJsonl, tick, timeOf } from './lib.mjs'

const sessionPostgres = await import(new URL('../packages/session-postgres/dist/index.js', import.meta.url).href)
const { startServer } = await import(new URL('../packages/test-postgres/dist/index.js', import.meta.url).href)

const WINDOW_MS = 10

function app(backend) {
  const ctx = new Context()
  ctx.plugin(session.SessionStore)
  if (backend.kind === 'jsonl')
    ctx.plugin(sessionJsonl.SessionJsonl, { root: backend.root, writeBatchMaxDelayMs: WINDOW_MS })
  else
    ctx.plugin(sessionPostgres.SessionPostgres, {
      connectionString: backend.url,
      schema: backend.schema,
      writeBatchMaxDelayMs: WINDOW_MS,
      poolSize: 10,
    })
  return ctx
}

async function stop(ctx) {
  const persistence = ctx.get('sessionPersistence')
  ctx.scope.dispose()
  await persistence?.whenStopped?.()
}

const message = (i) => llm.createUserMessage(`message ${i} ${'x'.repeat(120)}`)

/**
 * Events per second stored durably: `sessions` sessions each receive `perRound` events every round, yielding to
 * the event loop between rounds (so write-behind windows close and batches are written while appends go on), then
 * every session is flushed. The clock stops when the last flush resolved.
 */
async function sustained(backend, sessions, total) {
  const ctx = app(backend)
  await tick()
  await ctx.get('sessionPersistence').ready
  const live = Array.from({ length: sessions }, (_, i) => ctx.sessions.create(`s-${i}`))
  const perRound = 10
  const rounds = Math.ceil(total / (sessions * perRound))
  const started = performance.now()
  let n = 0
  for (let r = 0; r < rounds; r++) {
    for (const s of live)
      for (let k = 0; k < perRound; k++) s.append('user/message', message(n++), { surfaceOp: 'append' })
    await tick()
  }
  await Promise.all(live.map((s) => ctx.sessions.flush(s)))
  const elapsed = performance.now() - started
  await stop(ctx)
  return n / (elapsed / 1000)
}

async function writeLong(backend, count) {
  const ctx = app(backend)
  await tick()
  await ctx.get('sessionPersistence').ready
  const s = ctx.sessions.create('long')
  s.append('turn/start', { turn: 1 })
  for (let i = 0; i < count; i++) s.append('user/message', message(i), { surfaceOp: 'append' })
  s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
  await ctx.sessions.flush(s)
  await stop(ctx)
}

/**
 * `inspect('long')` on a fresh app over each backend, the two back to back in pairs (alternating which goes first);
 * the median of the per-pair ratios postgres ÷ jsonl, and each side's median in ms.
 */
async function reloadRatio(backends, pairs) {
  const readers = backends.map((b) => app(b))
  await tick()
  for (const r of readers) await r.get('sessionPersistence').ready
  const reload = (r) => () => timeOf(() => r.get('sessionPersistence').inspect('long'))
  await pairedRatio(reload(readers[1]), reload(readers[0]), 2)
  const result = await pairedRatio(reload(readers[1]), reload(readers[0]), pairs)
  for (const r of readers) await stop(r)
  return result
}

/**
 * A holder process writes the session and is SIGKILLed; a new owner waits for the lease and writes one event. The
 * time runs from the lease's expiry to the commit of that event, both on the database clock.
 */
async function takeover(backend, round) {
  const id = `takeover-${round}`
  const holder = spawn(
    process.execPath,
    [new URL('./postgres-holder.mjs', import.meta.url).pathname, backend.url, backend.schema, id],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  await new Promise((resolve, reject) => {
    holder.stdout.on('data', (d) => String(d).includes('holding') && resolve())
    holder.on('exit', (code) => reject(new Error(`holder exited with ${code}`)))
  })
  holder.kill('SIGKILL')
  const ctx = app(backend)
  await tick()
  const persistence = ctx.get('sessionPersistence')
  await persistence.ready
  const pool = persistence.pool
  const { rows } = await pool.query(
    `SELECT extract(epoch FROM lease_expires) * 1000 AS expires FROM "${backend.schema}".sessions WHERE id = $1`,
    [id],
  )
  const resumed = await persistence.resume(id, undefined, { waitMs: 60_000 })
  resumed.append('turn/start', { turn: 99 })
  await ctx.sessions.flush(resumed)
  const after = await pool.query(
    `SELECT extract(epoch FROM updated_at) * 1000 AS at FROM "${backend.schema}".sessions WHERE id = $1`,
    [id],
  )
  await stop(ctx)
  return Number(after.rows[0].at) - Number(rows[0].expires)
}

export async function postgresBeside() {
  const server = await startServer({ fsync: true, own: !process.env.BRIDLE_BENCH_PG_URL })
  const root = mkdtempSync(join(tmpdir(), 'bridle-bench-pg-'))
  const jsonl = (name) => ({ kind: 'jsonl', root: join(root, name) })
  const pg = (schema) => ({ kind: 'postgres', url: process.env.BRIDLE_BENCH_PG_URL ?? server.url, schema })
  try {
    const total = quick ? 5_000 : 20_000
    // the same size in --quick (fewer pairs): the ratio depends on the size
    const reload = 50_000
    const one = [await sustained(jsonl('one'), 1, total), await sustained(pg('one'), 1, total)]
    const many = [await sustained(jsonl('many'), 100, total * 2), await sustained(pg('many'), 100, total * 2)]
    await writeLong(jsonl('reload'), reload)
    await writeLong(pg('reload'), reload)
    const reloaded = await reloadRatio([jsonl('reload'), pg('reload')], quick ? 5 : 9)
    const [jsonlReload, pgReload] = [reloaded.b, reloaded.a]
    const takeovers = []
    for (let round = 0; round < (quick ? 2 : 5); round++) takeovers.push(await takeover(pg('takeover'), round))
    const takeoverMs = [...takeovers].sort((a, b) => a - b)[Math.floor(takeovers.length / 2)]
    const appendRatio = one[0] / one[1]
    const manyRatio = many[0] / many[1]
    const reloadCost = reloaded.ratio
    const rate = (v) => `${Math.round(v).toLocaleString('en-US')} events/s`
    return {
      title: 'session-postgres beside session-jsonl',
      columns: ['measure', 'session-jsonl', 'session-postgres', 'postgres cost (× jsonl)'],
      rows: [
        [`sustained append, 1 session (${WINDOW_MS} ms window)`, rate(one[0]), rate(one[1]), appendRatio.toFixed(2)],
        [
          `sustained append, 100 concurrent sessions (${WINDOW_MS} ms window)`,
          rate(many[0]),
          rate(many[1]),
          manyRatio.toFixed(2),
        ],
        [
          `reload (inspect) of a ${(reload + 2).toLocaleString('en-US')}-event session`,
          `${jsonlReload.toFixed(0)} ms`,
          `${pgReload.toFixed(0)} ms`,
          reloadCost.toFixed(2),
        ],
        [
          'takeover: lease expiry → first event of the new owner (lease 1 s, median)',
          '—',
          `${takeoverMs.toFixed(0)} ms`,
          '—',
        ],
      ],
      bars: [
        { name: 'postgres reload within 2 × jsonl', value: reloadCost, limit: 2, ok: reloadCost <= 2 },
        {
          name: 'postgres append throughput at 100 sessions within 2 × jsonl',
          value: manyRatio,
          limit: 2,
          ok: manyRatio <= 2,
        },
      ],
    }
  } finally {
    rmSync(root, { recursive: true, force: true })
    await server.stop()
  }
}
