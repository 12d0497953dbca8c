// The cluster's throughput and latency: 1, 2 and 4 worker processes (concurrency 2 each) serve 40 sessions over a
// throwaway PostgreSQL; every turn is one scripted model call with a fixed 50 ms latency. A client in this process
// posts through two front processes (`startFront`, real HTTP) and follows each session's event stream: each session
// posts its next message when the answer to the previous one has ended its turn, so the queue always holds work.
// Reported: turns per second per pool size, and the time from a POST to the first event of its answer on the stream
// (p50 / p99), both under that load and on a quiet pool (one message at a time, 4 workers), and the CPU time per
// turn; then 1 and 4 workers once more with a 250 ms model, where the CPU of a shared machine is not what runs out.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { quick } from './lib.mjs'

const { startServer } = await import(new URL('../packages/test-postgres/dist/index.js', import.meta.url).href)

const LATENCY_MS = 50
/** The slower model of the rows without a bar. */
const SLOW_MS = 250
/** Front processes the client spreads its sessions over (the client's own process only posts and reads streams). */
const FRONTS = 2
const SESSIONS = 40
/** Turns of every measured session before the measured window. */
const WARM_TURNS = 3
/** Turns each worker process serves, on sessions of their own, before the measured sessions start. */
const WARM_PER_PROCESS = 120
/** Cores the scaling bar needs before it gates: one per busy process (4 workers, 2 fronts, the client, PostgreSQL). */
const CORES_FOR_SCALE = 8
const cores = os.availableParallelism?.() ?? os.cpus().length
const TOKEN = `bench-${randomBytes(12).toString('hex')}`

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

/** CPU time (ms) of this machine's PostgreSQL processes, from `/proc` (Linux; `NaN` elsewhere). */
function postgresCpuMs() {
  try {
    let ticks = 0
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue
      let stat
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      } catch {
        continue // exited meanwhile
      }
      if (!stat.includes('(postgres)')) continue
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(fields[11]) + Number(fields[12]) // utime, stime
    }
    return (ticks * 1000) / CLOCK_TICKS
  } catch {
    return Number.NaN
  }
}
/** `/proc`'s clock ticks per second (USER_HZ), 100 on every Linux this runs on. */
const CLOCK_TICKS = 100

/**
 * A child process of the benchmark (`cluster-worker.mjs` or `cluster-front.mjs`); `ready` resolves its first line,
 * `cpu()` the CPU time (ms) it has used since then.
 */
function child(script, config) {
  const process_ = spawn(process.execPath, [new URL(script, import.meta.url).pathname, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let out = ''
  const answers = []
  process_.stdout.on('data', (d) => {
    out += d
    for (let cut; (cut = out.indexOf('\n')) >= 0; out = out.slice(cut + 1)) answers.shift()?.(out.slice(0, cut))
  })
  const line = () => new Promise((resolve) => answers.push(resolve))
  const ready = Promise.race([
    line(),
    new Promise((_, reject) => process_.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)))),
  ])
  const exited = new Promise((resolve) => process_.on('close', resolve))
  const cpu = async () => {
    const answer = line()
    process_.stdin.write('cpu\n')
    return Number(/^cpu (\S+)$/.exec(await answer)?.[1] ?? Number.NaN)
  }
  const stop = async () => {
    process_.kill('SIGTERM')
    await exited
  }
  return { ready, cpu, stop }
}

/** Follows a session's event stream, calling `onEvent(type, data)` for each event, until `signal` aborts. */
async function follow(base, id, signal, onEvent) {
  const response = await fetch(`${base}/sessions/${id}/events`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal,
  })
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true })
      let cut
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut)
        buffer = buffer.slice(cut + 2)
        const type = /^event: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        if (type !== undefined && data !== undefined) onEvent(type, data)
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error
  }
}

/** Every process's CPU time (ms) so far: the workers', the fronts', this client's and PostgreSQL's. */
async function cpuNow(pool, fronts) {
  const sum = async (children) => (await Promise.all(children.map((c) => c.cpu()))).reduce((a, b) => a + b, 0)
  const [workers, frontsCpu] = await Promise.all([sum(pool), sum(fronts)])
  const own = process.cpuUsage()
  return { workers, fronts: frontsCpu, client: (own.user + own.system) / 1000, postgres: postgresCpuMs() }
}

/**
 * Drives `ids` in a closed loop through the fronts: each session asks its next question as soon as its previous turn
 * ended, until `warm + turns` turns of every session have ended over the whole pool. Resolves the window — from the
 * `warm`-th turn per session to the end — as `{ start, end }` marks (time and every process's CPU), and the POST →
 * first answer event times of the questions asked inside it.
 */
async function drive({ ids, frontOf, call, pool, fronts }, warm, turns) {
  const streams = new AbortController()
  const latencies = []
  const windowStart = ids.length * warm
  const windowEnd = ids.length * (warm + turns)
  const mark = () => ({ at: performance.now(), cpu: cpuNow(pool, fronts) })
  let done = 0
  let start = windowStart === 0 ? mark() : undefined
  let end
  let asking = ids.length
  const finished = new Promise((resolve, reject) => {
    for (const id of ids) {
      let asked = 0
      let postedAt = 0
      let answering = false
      let inWindow = false
      const ask = () => {
        asked++
        answering = false
        inWindow = start !== undefined && end === undefined
        postedAt = performance.now()
        call(frontOf(id), `/sessions/${id}/messages`, { text: `question ${asked}` }).catch(reject)
      }
      void follow(frontOf(id), id, streams.signal, (type, data) => {
        if (type === 'assistant/chunk' && !answering) {
          answering = true
          if (inWindow) latencies.push(performance.now() - postedAt)
        }
        if (type !== 'turn/end') return
        if (!data.includes('"completed"')) return reject(new Error(`session ${id}: a turn ended ${data}`))
        done++
        if (done === windowStart) start = mark()
        if (done === windowEnd) end = mark()
        if (end === undefined) ask()
        else if (--asking === 0) resolve()
      }).catch(reject)
      setTimeout(ask, 50) // the stream is open before the first question
    }
  })
  await finished
  streams.abort()
  return { start: { at: start.at, cpu: await start.cpu }, end: { at: end.at, cpu: await end.cpu }, latencies }
}

/**
 * One measured run: `workers` processes serve `SESSIONS` sessions (or, with `quiet`, one). First every worker process
 * serves about `WARM_PER_PROCESS` turns of sessions of their own (a fresh process runs its first turns JIT-cold, and
 * a pool of 4 would otherwise warm on a quarter of the turns each); then the measured sessions ask `warm` turns each,
 * and the window is their next `turns` turns each, counted over the whole pool while every session is still asking,
 * so neither the start nor the tail of the run is in it. Resolves turns/s over the window, the POST → first answer
 * event times of the questions asked in it, and the CPU each kind of process used in it per turn.
 */
async function run(server, workers, turns, { quiet = false, latencyMs = LATENCY_MS, warm = WARM_TURNS } = {}) {
  const tag = randomBytes(4).toString('hex')
  const db = { url: server.url, schema: `b_${tag}`, queueSchema: `bq_${tag}` }
  const fronts = Array.from({ length: FRONTS }, () => child('./cluster-front.mjs', { ...db, token: TOKEN }))
  const pool = Array.from({ length: workers }, () =>
    child('./cluster-worker.mjs', { ...db, concurrency: 2, latencyMs }),
  )
  // every child is stopped however the run ends (a failed run must not leave processes on the database)
  try {
    return await measure(fronts, pool, workers, turns, { quiet, latencyMs, warm })
  } finally {
    await Promise.all([...pool, ...fronts].map((c) => c.stop()))
  }
}

/** The part of `run` between starting the processes and stopping them. */
async function measure(fronts, pool, workers, turns, { quiet, latencyMs, warm }) {
  const urls = await Promise.all(fronts.map((f) => f.ready))
  await Promise.all(pool.map((w) => w.ready))
  const call = (base, path, body) =>
    fetch(base + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => {
      if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`)
    })
  const clients = async (prefix, count) => {
    const ids = Array.from({ length: count }, (_, i) => `${prefix}${i}`)
    const frontOf = (id) => urls[Number(id.slice(prefix.length)) % urls.length]
    for (const id of ids) await call(frontOf(id), '/sessions', { id })
    return { ids, frontOf, call, pool, fronts }
  }
  if (latencyMs === LATENCY_MS && !quiet) {
    await drive(await clients('w', SESSIONS), 0, Math.ceil((WARM_PER_PROCESS * workers) / SESSIONS))
  }
  const { start, end, latencies } = await drive(await clients('s', quiet ? 1 : SESSIONS), warm, turns)
  const total = (quiet ? 1 : SESSIONS) * turns
  const perTurn = (kind) => (end.cpu[kind] - start.cpu[kind]) / total
  return {
    tps: total / ((end.at - start.at) / 1000),
    latencies,
    cpu: {
      workers: perTurn('workers'),
      fronts: perTurn('fronts'),
      client: perTurn('client'),
      postgres: perTurn('postgres'),
    },
  }
}

export async function cluster() {
  const server = await startServer({
    // Off by default: with fsync on, this machine's shared disk caps the commits of every pool size alike (about 11
    // turns/s, BENCHMARKS.md), which measures the disk, not the workers. BRIDLE_BENCH_FSYNC=1 turns it on.
    fsync: process.env.BRIDLE_BENCH_FSYNC === '1',
    own: !process.env.BRIDLE_BENCH_PG_URL,
  })
  const pg = { url: process.env.BRIDLE_BENCH_PG_URL ?? server.url }
  const loads = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')
  try {
    // the same window in --quick: a shorter one read the pools unlike the full run (BENCHMARKS.md, "Measuring the steady state")
    const turns = 10
    const loadBefore = loads()
    const results = []
    for (const workers of [1, 2, 4]) results.push({ workers, ...(await run(pg, workers, turns)) })
    const quiet = await run(pg, 4, quick ? 30 : 100, { quiet: true, warm: 5 })
    // The same pools with a slower model: while the turns wait on the model, the CPU is not what runs out.
    const slow = []
    for (const workers of [1, 4]) slow.push(await run(pg, workers, quick ? 2 : 3, { latencyMs: SLOW_MS, warm: 1 }))
    const loadAfter = loads()
    const scale = results[2].tps / results[0].tps
    const quietP99 = percentile(quiet.latencies, 99)
    const bound = 2 * LATENCY_MS + 100
    const ms = (v) => `${Math.round(v)} ms`
    const cpuCell = ({ cpu }) =>
      `${[cpu.workers, cpu.fronts, cpu.client, cpu.postgres].map((v) => (Number.isNaN(v) ? '—' : v.toFixed(1))).join(' / ')} ms`
    return {
      title: 'Cluster: worker processes over one PostgreSQL',
      columns: [
        'pool',
        'turns/s',
        '× one worker',
        'POST → first answer event p50 / p99',
        'CPU per turn: workers / fronts / client / PostgreSQL',
      ],
      rows: [
        ...results.map((r) => [
          `${r.workers} worker${r.workers > 1 ? 's' : ''} × concurrency 2, ${SESSIONS} sessions × ${turns} turns (after ${WARM_TURNS} to warm up)`,
          r.tps.toFixed(1),
          (r.tps / results[0].tps).toFixed(2),
          `${ms(percentile(r.latencies, 50))} / ${ms(percentile(r.latencies, 99))} (under load)`,
          cpuCell(r),
        ]),
        [
          `quiet: 4 workers, one message at a time (${quiet.latencies.length} turns)`,
          quiet.tps.toFixed(1),
          '—',
          `${ms(percentile(quiet.latencies, 50))} / ${ms(quietP99)}`,
          cpuCell(quiet),
        ],
        ...slow.map((r, i) => [
          `${i === 0 ? 1 : 4} worker${i === 0 ? '' : 's'}, model latency ${SLOW_MS} ms (no bar)`,
          r.tps.toFixed(1),
          (r.tps / slow[0].tps).toFixed(2),
          `${ms(percentile(r.latencies, 50))} / ${ms(percentile(r.latencies, 99))} (under load)`,
          cpuCell(r),
        ]),
        [
          'load average (1, 5, 15 min) before / after',
          loadBefore,
          loadAfter,
          `model latency ${LATENCY_MS} ms a call`,
          '—',
        ],
      ],
      bars: [
        {
          name: '4 workers ≥ 3 × one worker’s turns/s',
          value: scale,
          limit: 3,
          ok: scale >= 3,
          // 4 workers, 2 fronts, the client and PostgreSQL are 8 busy processes: with fewer cores they take turns, and
          // the ratio measures the cores (BENCHMARKS.md, "Cluster (issue 32)"). It is printed everywhere and gates the
          // exit code only where the pool has a core per process.
          ...(cores < CORES_FOR_SCALE && {
            gate: false,
            why: `judged on ${CORES_FOR_SCALE} or more cores; this machine has ${cores}`,
          }),
        },
        {
          name: `quiet p99 POST → first answer event ≤ 2 × model latency + 100 ms (${bound} ms)`,
          value: quietP99,
          limit: bound,
          ok: quietP99 <= bound,
        },
      ],
    }
  } catch (error) {
    process.stderr.write(`bench cluster: ${error?.stack ?? error}\n`)
    throw error
  } finally {
    await server.stop()
  }
}
