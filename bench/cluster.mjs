// The cluster's throughput and latency: 1, 2 and 4 worker processes (concurrency 2 each) serve 40 sessions over a
// throwaway PostgreSQL; every turn is one scripted model call with a fixed 50 ms latency. A client in this process
// posts through two front processes (`startFront`, real HTTP) and follows each session's event stream: each session
// posts its next message when the answer to the previous one has ended its turn, so the queue always holds work.
// Reported: turns per second per pool size, and the time from a POST to the first event of its answer on the stream
// (p50 / p99), both under that load and on a quiet pool (one message at a time, 4 workers), and the CPU time per
// turn; then 1 and 4 workers once more with a 250 ms model, where the CPU of a shared machine is not what runs out.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import { quick } from './lib.mjs'

const { startServer } = await import(new URL('../packages/test-postgres/dist/index.js', import.meta.url).href)

const LATENCY_MS = 50
/** The slower model of the rows without a bar. */
const SLOW_MS = 250
/** Front processes the client spreads its sessions over (the client's own process only posts and reads streams). */
const FRONTS = 2
const SESSIONS = 40
/** Cores the scaling bar needs before it gates: one per busy process (4 workers, 2 fronts, the client, PostgreSQL). */
const CORES_FOR_SCALE = 8
const cores = os.availableParallelism?.() ?? os.cpus().length
const TOKEN = `bench-${randomBytes(12).toString('hex')}`

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

/** A child process of the benchmark (`cluster-worker.mjs` or `cluster-front.mjs`); `ready` resolves its first line. */
function child(script, config) {
  const process_ = spawn(process.execPath, [new URL(script, import.meta.url).pathname, JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  process_.stdout.on('data', (d) => (out += d))
  const ready = new Promise((resolve, reject) => {
    process_.stdout.on('data', () => out.includes('\n') && resolve(out.split('\n')[0]))
    process_.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
  })
  // 'close': the child's last line (its CPU time) may still be in the pipe at 'exit'
  const exited = new Promise((resolve) => process_.on('close', resolve))
  const stop = async () => {
    process_.kill('SIGTERM')
    await exited
    return Number(/^cpu (\S+)$/m.exec(out)?.[1] ?? Number.NaN)
  }
  return { ready, stop }
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

/**
 * One measured run: `workers` processes, `SESSIONS` sessions each asking `turns` questions in a closed loop (or, with
 * `quiet`, one session at a time asking one after another). Resolves turns/s and the POST → first answer event times.
 */
async function run(server, workers, turns, { quiet = false, latencyMs = LATENCY_MS } = {}) {
  const tag = randomBytes(4).toString('hex')
  const db = { url: server.url, schema: `b_${tag}`, queueSchema: `bq_${tag}` }
  const fronts = Array.from({ length: FRONTS }, () => child('./cluster-front.mjs', { ...db, token: TOKEN }))
  const urls = await Promise.all(fronts.map((f) => f.ready))
  const pool = Array.from({ length: workers }, () =>
    child('./cluster-worker.mjs', { ...db, concurrency: 2, latencyMs }),
  )
  await Promise.all(pool.map((w) => w.ready))
  const frontOf = (id) => urls[Number(id.slice(1)) % urls.length]
  const call = (base, path, body) =>
    fetch(base + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => {
      if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`)
    })
  const count = quiet ? 1 : SESSIONS
  const ids = Array.from({ length: count }, (_, i) => `s${i}`)
  for (const id of ids) await call(frontOf(id), '/sessions', { id })
  const streams = new AbortController()
  const latencies = []
  let done = 0
  const finished = new Promise((resolve, reject) => {
    for (const id of ids) {
      let asked = 0
      let postedAt = 0
      let answering = false
      const ask = () => {
        asked++
        answering = false
        postedAt = performance.now()
        call(frontOf(id), `/sessions/${id}/messages`, { text: `question ${asked}` }).catch(reject)
      }
      void follow(frontOf(id), id, streams.signal, (type, data) => {
        if (type === 'assistant/chunk' && !answering) {
          answering = true
          latencies.push(performance.now() - postedAt)
        }
        if (type !== 'turn/end') return
        if (!data.includes('"completed"')) return reject(new Error(`session ${id}: a turn ended ${data}`))
        done++
        if (asked < turns) ask()
        else if (done === count * turns) resolve()
      }).catch(reject)
      setTimeout(ask, 50) // the stream is open before the first question
    }
  })
  const started = performance.now()
  const ownCpu = process.cpuUsage()
  await finished
  const elapsed = (performance.now() - started) / 1000
  const used = process.cpuUsage(ownCpu)
  streams.abort()
  const workerCpu = (await Promise.all(pool.map((w) => w.stop()))).reduce((a, b) => a + b, 0)
  const frontCpu = (await Promise.all(fronts.map((f) => f.stop()))).reduce((a, b) => a + b, 0)
  const total = count * turns
  return {
    tps: total / elapsed,
    latencies,
    cpuPerTurn: workerCpu / total,
    frontCpuPerTurn: frontCpu / total,
    clientCpuPerTurn: (used.user + used.system) / 1000 / total,
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
    const turns = quick ? 2 : 4
    const loadBefore = loads()
    const results = []
    for (const workers of [1, 2, 4]) results.push({ workers, ...(await run(pg, workers, turns)) })
    const quiet = await run(pg, 4, quick ? 30 : 100, { quiet: true })
    // The same pools with a slower model: while the turns wait on the model, the CPU is not what runs out.
    const slow = []
    for (const workers of [1, 4]) slow.push(await run(pg, workers, turns, { latencyMs: SLOW_MS }))
    const loadAfter = loads()
    const scale = results[2].tps / results[0].tps
    const quietP99 = percentile(quiet.latencies, 99)
    const bound = 2 * LATENCY_MS + 100
    const ms = (v) => `${Math.round(v)} ms`
    return {
      title: 'Cluster: worker processes over one PostgreSQL',
      columns: [
        'pool',
        'turns/s',
        '× one worker',
        'POST → first answer event p50 / p99',
        'CPU per turn: workers / fronts / client',
      ],
      rows: [
        ...results.map((r) => [
          `${r.workers} worker${r.workers > 1 ? 's' : ''} × concurrency 2, ${SESSIONS} sessions × ${turns} turns`,
          r.tps.toFixed(1),
          (r.tps / results[0].tps).toFixed(2),
          `${ms(percentile(r.latencies, 50))} / ${ms(percentile(r.latencies, 99))} (under load)`,
          `${r.cpuPerTurn.toFixed(1)} / ${r.frontCpuPerTurn.toFixed(1)} / ${r.clientCpuPerTurn.toFixed(1)} ms`,
        ]),
        [
          `quiet: 4 workers, one message at a time (${quiet.latencies.length} turns)`,
          quiet.tps.toFixed(1),
          '—',
          `${ms(percentile(quiet.latencies, 50))} / ${ms(quietP99)}`,
          `${quiet.cpuPerTurn.toFixed(1)} / ${quiet.frontCpuPerTurn.toFixed(1)} / ${quiet.clientCpuPerTurn.toFixed(1)} ms`,
        ],
        ...slow.map((r, i) => [
          `${i === 0 ? 1 : 4} worker${i === 0 ? '' : 's'}, model latency ${SLOW_MS} ms (no bar)`,
          r.tps.toFixed(1),
          (r.tps / slow[0].tps).toFixed(2),
          `${ms(percentile(r.latencies, 50))} / ${ms(percentile(r.latencies, 99))} (under load)`,
          `${r.cpuPerTurn.toFixed(1)} / ${r.frontCpuPerTurn.toFixed(1)} / ${r.clientCpuPerTurn.toFixed(1)} ms`,
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
