// Reloading a large JSONL log through session-jsonl against plain readFile + split + JSON.parse of the same file, the
// parsed values kept as a reader must keep them. Every sample starts after a full collection, so no side pays for the
// garbage the other left: the baseline used to drop each value at once, and in alternating samples it then paid part
// of the collection of the reader's 50,000 events (0.62 that way; 0.555 once each sample started clean).
import { mkdtempSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { bootCore, fullGc, llm, middle, spread, tick, timeOf } from './lib.mjs'

/**
 * Runs of the whole measurement, in --quick too: its first runs are colder, and with 3 runs they weighed enough in the
 * pooled median to miss the bar under load (0.57) where 5 met it (0.63).
 */
const RUNS = 5
/** Unrecorded pairs at the start of each run, then the timed ones. */
const WARM_PAIRS = 2
const PAIRS = 11

async function writeLog(root, count) {
  const writer = bootCore({ persistence: { root } })
  const s = writer.sessions.create()
  await tick()
  s.append('turn/start', { turn: 1 })
  for (let i = 0; i < count; i++)
    s.append('user/message', llm.createUserMessage(`message ${i} ${'x'.repeat(80)}`), { surfaceOp: 'append' })
  s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
  await writer.sessions.flush(s)
  const written = { file: writer.sessionPersistence.locate(s.header).path, id: s.id }
  await writer.scope.dispose()
  return written
}

export async function jsonlReload() {
  // the same size in --quick (fewer pairs): the ratio of a validating reader to a plain parse depends on the size
  const count = 50_000
  const root = mkdtempSync(join(tmpdir(), 'bridle-bench-reload-'))
  // A reload happens in a process that did not just write 50,000 events: the log is written in a worker thread (its
  // own heap), so the writer's live and discarded objects are not in the heap the reader's garbage collector walks.
  const { file, id } = await new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { role: 'jsonl-writer', root, count } })
    worker.once('message', (written) => {
      resolve(written)
      void worker.terminate()
    })
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`jsonl writer exited with ${code} before reporting`)))
  })
  /** The least a reload does: read the file, split it, parse every line and keep the values. */
  const plainRead = async () => {
    const text = await readFile(file, 'utf8')
    const values = []
    for (const line of text.split('\n')) if (line) values.push(JSON.parse(line))
    return values
  }
  /** The baseline before December 6, which dropped every value at once (shown, no bar). */
  const plainDropped = async () => {
    const text = await readFile(file, 'utf8')
    for (const line of text.split('\n')) if (line) JSON.parse(line)
  }
  const clean = async (work) => {
    fullGc()
    return timeOf(work)
  }
  // Each run boots a fresh reader app and takes the readers in turn, each from a clean heap, so all see the same
  // machine. The bar is the median of every paired ratio of every run (one slow run on a shared machine cannot decide
  // it); the table shows the spread of the runs' own medians.
  const runSpeeds = []
  const resumes = []
  const dropped = []
  for (let run = 0; run < RUNS; run++) {
    const reader = bootCore({ persistence: { root } })
    await tick()
    const inspect = () => reader.sessionPersistence.inspect(id)
    // A resume's preparation: repair check, validation and the unpublished session, released again.
    const prepare = async () => (await reader.sessionPersistence.prepare(id))[Symbol.dispose]()
    const speed = []
    const resume = []
    const drop = []
    for (let i = 0; i < WARM_PAIRS + PAIRS; i++) {
      const p = await clean(plainRead)
      const q = await clean(inspect)
      const r = await clean(prepare)
      const d = await clean(plainDropped)
      if (i >= WARM_PAIRS) speed.push(p / q), resume.push(p / r), drop.push(d / q)
    }
    await reader.scope.dispose()
    runSpeeds.push(speed)
    resumes.push(middle(resume))
    dropped.push(middle(drop))
  }
  rmSync(root, { recursive: true, force: true })
  const speed = spread(runSpeeds.map(middle))
  const pairedMedian = middle(runSpeeds.flat())
  return {
    title: `Reloading a large JSONL log, ${RUNS} run${RUNS > 1 ? 's' : ''}: min / median / max`,
    columns: ['reader', 'events', 'speed relative to plain readFile + split + JSON.parse'],
    rows: [
      ['readFile + split + JSON.parse, values kept', String(count + 2), '1.00'],
      ['sessionPersistence.inspect (validated, frozen events)', String(count + 2), speed.text],
      [
        'sessionPersistence.prepare (what a resume reads: validated once, plus the unpublished session; no bar)',
        String(count + 2),
        spread(resumes).text,
      ],
      [
        'sessionPersistence.inspect against the parse that drops its values (the baseline before December 6; no bar)',
        String(count + 2),
        spread(dropped).text,
      ],
    ],
    bars: [
      {
        name: 'reload ≥ 0.6 × plain parse speed (median of the paired ratios of all runs)',
        value: pairedMedian,
        ok: pairedMedian >= 0.6,
      },
    ],
  }
}

if (!isMainThread && workerData?.role === 'jsonl-writer') {
  parentPort.postMessage(await writeLog(workerData.root, workerData.count))
}
