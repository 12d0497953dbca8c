// `bridle sessions` over many long sessions beside the same number of one-event sessions, for session-jsonl and
// session-postgres. One session of about 10,000 events (345 scripted turns: tool rounds, chunks, digests) is written
// through the real backend, then cloned under other ids (JSONL: the header's id changed and the file sealed again;
// PostgreSQL: its rows copied in SQL), so every listed session is one a backend wrote. Each sample lists both sets
// back to back (paired, alternating order): in process (`persistence.summaries()`) and as a user runs it (a fresh
// `bridle sessions --json` process). Bar: listing the long sessions within 5 × listing the one-event ones.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { pairedRatio, quick, session, sessionJsonl, timeOf } from './lib.mjs'

const conformance = await import(new URL('../packages/persistence-conformance/dist/script.js', import.meta.url).href)
const sessionPostgres = await import(new URL('../packages/session-postgres/dist/index.js', import.meta.url).href)
const { startServer } = await import(new URL('../packages/test-postgres/dist/index.js', import.meta.url).href)

const BIN = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url))
const SESSIONS = quick ? 100 : 1000
const TURNS = 345 // 29 events a turn: 10,005 events
const SAMPLES = quick ? 5 : 9
const idOf = (i) => `bench-${String(i).padStart(4, '0')}`

/** An app with the session store and one backend. */
function app(backend) {
  const ctx = new Context()
  ctx.plugin(session.SessionStore)
  if (backend.kind === 'jsonl') ctx.plugin(sessionJsonl.SessionJsonl, { root: backend.root })
  else ctx.plugin(sessionPostgres.SessionPostgres, { connectionString: backend.url, schema: backend.schema })
  return ctx
}

/** Writes session `bench-0000` through the backend: `turns` scripted turns (or one user message for 0). */
async function writeFirst(backend, turns) {
  const ctx = app(backend)
  const s = ctx.sessions.create(idOf(0), { meta: { cwd: tmpdir() } })
  const appends = turns === 0 ? conformance.scriptedAppends(1).slice(3, 4) : conformance.scriptedAppends(turns)
  for (const [i, a] of appends.entries()) {
    s.append(a.type, a.data, a.opts)
    if (i % 500 === 499) await ctx.sessions.flush(s)
  }
  await ctx.sessions.flush(s)
  ctx.scope.dispose()
  await ctx.lifecycle.flush()
}

/** JSONL: copies of `bench-0000`'s log under the other ids, each sealed again (the header names its id). */
function cloneJsonl(root) {
  const sealed = readFileSync(join(root, `${sessionJsonl.encodeSegment(idOf(0))}.jsonl`), 'utf8')
  const plain = sealed.replace(/,"crc":"[0-9a-f]{8}"\}$/gm, '}')
  for (let i = 1; i < SESSIONS; i++) {
    const text = plain.replace(`"id":"${idOf(0)}"`, `"id":"${idOf(i)}"`)
    writeFileSync(join(root, `${sessionJsonl.encodeSegment(idOf(i))}.jsonl`), sessionJsonl.sealLog(text))
  }
}

/** PostgreSQL: the rows of `bench-0000` (its session row, summary columns included, and its events) copied in SQL. */
async function clonePostgres(backend) {
  const pg = createRequire(new URL('../packages/session-postgres/package.json', import.meta.url))('pg')
  const client = new pg.Client({ connectionString: backend.url })
  await client.connect()
  const s = `"${backend.schema}"`
  const ids = `'bench-' || lpad(i::text, 4, '0')`
  await client.query(
    `INSERT INTO ${s}.sessions (id, format_version, created_at, cwd, parent_session, seed_length, event_count, revision,
       summarized, turns, last_activity, model_provider, model_name, first_prompt)
     SELECT ${ids}, format_version, created_at + i, cwd, parent_session, seed_length, event_count, revision,
       summarized, turns, last_activity, model_provider, model_name, first_prompt
       FROM ${s}.sessions, generate_series(1, $1) AS i WHERE id = 'bench-0000'`,
    [SESSIONS - 1],
  )
  await client.query(
    `INSERT INTO ${s}.events (session_id, seq, body)
     SELECT ${ids}, seq, body FROM ${s}.events, generate_series(1, $1) AS i WHERE session_id = 'bench-0000'`,
    [SESSIONS - 1],
  )
  await client.end()
}

/** Milliseconds from spawning `bridle -c config sessions --json` to its exit (it must list `SESSIONS` rows). */
function cliListing(config) {
  const started = performance.now()
  const child = spawn(process.execPath, [BIN, '-c', config, 'sessions', '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (err += d))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    let ms = 0
    child.once('exit', () => (ms = performance.now() - started))
    // 'close', not 'exit': a child's output can still be in the pipe when it exits (1,000 rows are ~200 KB)
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`bridle sessions exited ${code}: ${err}`))
      const rows = JSON.parse(out).length
      if (rows !== SESSIONS) return reject(new Error(`bridle sessions listed ${rows} sessions, not ${SESSIONS}`))
      resolve(ms)
    })
  })
}

function appConfig(dir, backend) {
  const file = join(dir, `${backend.name}.yaml`)
  const row =
    backend.kind === 'jsonl'
      ? `  - package: '@bridle/session-jsonl'\n    config: { root: '${backend.root}' }\n`
      : `  - package: '@bridle/session-postgres'\n    config: { connectionString: '${backend.url}', schema: ${backend.schema} }\n`
  writeFileSync(file, `plugins:\n${row}`)
  return file
}

/** Paired listings of the long and the one-event sessions of one backend kind: in process and through the CLI. */
async function measure(dir, long, short) {
  for (const [backend, turns] of [
    [long, TURNS],
    [short, 0],
  ]) {
    await writeFirst(backend, turns)
    if (backend.kind === 'jsonl') cloneJsonl(backend.root)
    else await clonePostgres(backend)
  }
  const apps = [app(long), app(short)]
  const list = (ctx) => () =>
    timeOf(async () => {
      const rows = await ctx.sessionPersistence.summaries()
      if (rows.length !== SESSIONS) throw new Error(`listed ${rows.length} sessions, not ${SESSIONS}`)
    })
  try {
    const inProcess = await pairedRatio(list(apps[0]), list(apps[1]), SAMPLES)
    const configs = [appConfig(dir, long), appConfig(dir, short)]
    const cli = await pairedRatio(
      () => cliListing(configs[0]),
      () => cliListing(configs[1]),
      SAMPLES,
    )
    return { inProcess, cli }
  } finally {
    for (const ctx of apps) {
      ctx.scope.dispose()
      await ctx.lifecycle.flush()
    }
  }
}

export async function sessionsListing() {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-bench-listing-'))
  const server = await startServer({ own: true })
  try {
    const jsonl = await measure(
      dir,
      { kind: 'jsonl', name: 'jsonl-long', root: join(dir, 'long') },
      { kind: 'jsonl', name: 'jsonl-short', root: join(dir, 'short') },
    )
    const postgres = await measure(
      dir,
      { kind: 'postgres', name: 'pg-long', url: server.url, schema: 'long' },
      { kind: 'postgres', name: 'pg-short', url: server.url, schema: 'short' },
    )
    const row = (name, r) => [
      name,
      `${r.inProcess.ratio.toFixed(2)} (${r.inProcess.a.toFixed(0)} / ${r.inProcess.b.toFixed(0)} ms)`,
      `${r.cli.ratio.toFixed(2)} (${r.cli.a.toFixed(0)} / ${r.cli.b.toFixed(0)} ms)`,
    ]
    const bar = (name, value) => ({ name, value, ok: value <= 5 })
    return {
      title: `Listing ${SESSIONS.toLocaleString('en-US')} sessions of ${(TURNS * 29).toLocaleString('en-US')} events beside ${SESSIONS.toLocaleString('en-US')} one-event sessions (median of ${SAMPLES} paired ratios)`,
      columns: ['backend', '`summaries()` in process: long ÷ one-event', '`bridle sessions --json`: long ÷ one-event'],
      rows: [row('session-jsonl', jsonl), row('session-postgres', postgres)],
      bars: [
        bar('session-jsonl: `bridle sessions` within 5 × listing one-event sessions', jsonl.cli.ratio),
        bar('session-jsonl: `summaries()` within 5 × listing one-event sessions', jsonl.inProcess.ratio),
        bar('session-postgres: `bridle sessions` within 5 × listing one-event sessions', postgres.cli.ratio),
        bar('session-postgres: `summaries()` within 5 × listing one-event sessions', postgres.inProcess.ratio),
      ],
    }
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
