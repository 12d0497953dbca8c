// Reloading a large JSONL log through session-jsonl against plain readFile + split + JSON.parse of the same file.
import { mkdtempSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bootCore, llm, median, quick, tick } from './lib.mjs'

export async function jsonlReload() {
  const count = quick ? 5_000 : 50_000
  const root = mkdtempSync(join(tmpdir(), 'bridle-bench-reload-'))
  const writer = bootCore({ persistence: { root } })
  const s = writer.sessions.create()
  await tick()
  s.append('turn/start', { turn: 1 })
  for (let i = 0; i < count; i++) s.append('user/message', llm.createUserMessage(`message ${i} ${'x'.repeat(80)}`), { surfaceOp: 'append' })
  s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
  await writer.sessions.flush(s)
  const file = writer.sessionPersistence.locate(s.header).path
  const reader = bootCore({ persistence: { root } })
  await tick()
  const plain = await median('plain parse', async () => {
    const text = await readFile(file, 'utf8')
    const lines = text.split('\n')
    for (const line of lines) if (line) JSON.parse(line)
  })
  const inspect = await median('session-jsonl inspect', () => reader.sessionPersistence.inspect(s.id))
  rmSync(root, { recursive: true, force: true })
  const speed = plain / inspect
  return {
    title: 'Reloading a large JSONL log',
    columns: ['reader', 'events', 'speed relative to plain readFile + split + JSON.parse'],
    rows: [
      ['readFile + split + JSON.parse', String(count + 2), '1.00'],
      ['sessionPersistence.inspect (validated, frozen events)', String(count + 2), speed.toFixed(2)],
    ],
    bars: [{ name: 'reload ≥ 0.5 × plain parse speed', value: speed, limit: 0.5, ok: speed >= 0.5 }],
  }
}
