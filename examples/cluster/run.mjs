// `pnpm demo:cluster`: a cluster on one machine. An embedded PostgreSQL, one `bridle serve` and two `bridle worker`
// processes over examples/cluster/cluster.yaml; a scripted client creates three sessions and posts three messages to
// each over HTTP, while it follows their event streams. When a turn is under way it SIGKILLs the worker that holds
// that session's lease; the other worker takes the session over (after the handover time) and continues the
// interrupted turn from the log. At the end every session must hold an answer to each of its messages, exactly once,
// and `bridle inspect ID --verify` must pass for each. Offline: the model is the scripted one.
import { spawn } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from '../../packages/session-postgres/node_modules/pg/lib/index.js'
import { startServer } from '../../packages/test-postgres/dist/index.js'

const here = fileURLToPath(new URL('.', import.meta.url))
const bin = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url))
const token = `demo-${Math.random().toString(36).slice(2)}-token`
const say = (text) => process.stderr.write(`demo: ${text}\n`)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const server = await startServer({ own: true })
const dir = mkdtempSync(join(tmpdir(), 'bridle-cluster-demo-'))
cpSync(join(here, 'kitchen'), join(dir, 'kitchen'), { recursive: true })
writeFileSync(
  join(dir, 'bridle.yaml'),
  readFileSync(join(here, 'cluster.yaml'), 'utf8').replace(
    'connectionString: DATABASE_URL',
    `connectionString: ${JSON.stringify(server.url)}`,
  ),
)
const config = join(dir, 'bridle.yaml')
const children = []

/** Starts `bridle <args>` with the demo's app; its stderr lines are shown with `label`. */
function bridle(label, args) {
  const child = spawn(process.execPath, [bin, '-c', config, ...args], {
    cwd: dir,
    env: { ...process.env, BRIDLE_SERVE_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (chunk) => (out += chunk))
  child.stderr.on('data', (chunk) => {
    for (const line of String(chunk).split('\n').filter(Boolean)) {
      if (!line.includes(' 20') || !/ (GET|POST) /.test(line)) process.stderr.write(`  [${label}] ${line}\n`)
    }
  })
  child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  child.output = () => out
  children.push(child)
  return child
}

let failed = false
try {
  const front = bridle('serve', ['serve', '-p', '0'])
  while (!/^http:\/\/\S+\n/.test(front.output())) {
    if (front.exitCode !== null) throw new Error('bridle serve exited before it printed its address')
    await sleep(50)
  }
  const base = front.output().trim()
  say(`bridle serve is on ${base}`)
  const workers = [
    bridle('worker A', ['worker', '-n', '2', '--handover', '1']),
    bridle('worker B', ['worker', '-n', '2', '--handover', '1']),
  ]
  const call = async (method, path, body) => {
    const response = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json = await response.json()
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  }

  const sessions = ['breakfast', 'lunch', 'dinner']
  const questions = ['What should I order?', 'And what is the soup?', 'Anything sweet?']
  const events = new Map(sessions.map((id) => [id, []]))
  const streams = new AbortController()
  for (const id of sessions) await call('POST', '/sessions', { id, cwd: join(dir, 'kitchen') })
  for (const id of sessions) void follow(id)
  for (const [k, question] of questions.entries()) {
    for (const id of sessions) await call('POST', `/sessions/${id}/messages`, { text: question, id: `${id}-${k + 1}` })
  }
  say(`posted ${questions.length} messages to each of ${sessions.join(', ')}`)

  // Kill the worker that holds a session whose turn is under way (its lease names its process).
  const db = new pg.Client({ connectionString: server.url })
  await db.connect()
  let killed
  while (killed === undefined) {
    for (const id of sessions) {
      const seen = events.get(id)
      const turnOpen = seen.findLast((e) => e.event === 'turn/start' || e.event === 'turn/end')?.event === 'turn/start'
      if (
        !turnOpen ||
        !seen.some((e) => e.event === 'assistant/chunk' && e.seq > seen.findLast((x) => x.event === 'turn/start').seq)
      )
        continue
      const { rows } = await db.query('SELECT lease_owner FROM bridle.sessions WHERE id = $1', [id])
      const pid = Number(String(rows[0]?.lease_owner ?? '').split('/')[1])
      const victim = workers.find((w) => w.pid === pid)
      if (victim === undefined) continue
      victim.kill('SIGKILL')
      killed = { id, label: victim === workers[0] ? 'worker A' : 'worker B' }
      say(`SIGKILLed ${killed.label} (pid ${pid}) in the middle of a turn of session "${id}"`)
      break
    }
    await sleep(20)
  }
  await db.end()

  // Wait for every message to be answered.
  const answered = (id) =>
    events.get(id).filter((e) => e.event === 'turn/end' && e.data.data.reason.kind === 'completed').length
  const deadline = Date.now() + 120_000
  while (sessions.some((id) => answered(id) < questions.length)) {
    if (Date.now() > deadline) throw new Error('not every message was answered within 2 minutes')
    await sleep(100)
  }
  streams.abort()

  for (const id of sessions) {
    const log = events.get(id).map((e) => e.data)
    const entered = log.filter((e) => e.type === 'user/message' && e.data.source.kind === 'user').map((e) => e.data.id)
    const expected = questions.map((_, k) => `${id}-${k + 1}`)
    if (JSON.stringify(entered) !== JSON.stringify(expected))
      throw new Error(`session "${id}" entered ${JSON.stringify(entered)}, expected ${JSON.stringify(expected)}`)
    const answers = log
      .filter((e) => e.type === 'assistant/message')
      .map((e) => e.data.message.content.find((b) => b.type === 'text')?.text)
      .filter(Boolean)
    const interrupted = log.filter((e) => e.type === 'turn/end' && e.data.reason.kind === 'interrupted').length
    say(
      `session "${id}": ${expected.length} messages, each entered once, ${answers.length} answers${interrupted ? `, ${interrupted} interrupted turn continued` : ''}: "${answers.at(-1)}"`,
    )
  }
  for (const id of sessions) {
    say(`$ bridle inspect ${id} --verify`)
    const inspect = bridle(`inspect ${id}`, ['inspect', id, '--verify'])
    const { code } = await inspect.exited
    process.stderr.write(
      inspect
        .output()
        .split('\n')
        .filter((l) => /verif|interrupted|turn \d/.test(l))
        .map((l) => `  ${l}\n`)
        .join(''),
    )
    if (code !== 0) throw new Error(`bridle inspect ${id} --verify exited ${code}`)
  }
  say(
    `done: the sessions survived the loss of ${killed.label}; nothing lost, nothing duplicated, every request verifies`,
  )

  async function follow(id) {
    let last
    for (;;) {
      try {
        const response = await fetch(`${base}/sessions/${id}/events`, {
          headers: {
            authorization: `Bearer ${token}`,
            ...(last === undefined ? {} : { 'last-event-id': String(last) }),
          },
          signal: streams.signal,
        })
        const decoder = new TextDecoder()
        let buffer = ''
        for await (const chunk of response.body) {
          buffer += decoder.decode(chunk, { stream: true })
          let cut
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut)
            buffer = buffer.slice(cut + 2)
            const data = /^data: (.*)$/m.exec(block)?.[1]
            if (data === undefined) continue
            const event = JSON.parse(data)
            events.get(id).push({ seq: event.seq, event: event.type, data: event })
            last = event.seq
          }
        }
      } catch {
        if (streams.signal.aborted) return
        await sleep(100)
      }
    }
  }
} catch (error) {
  failed = true
  say(`FAILED: ${error.message}`)
} finally {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
  await Promise.all(children.map((child) => child.exited))
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
