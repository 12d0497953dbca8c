// Session append throughput, in memory and with session-jsonl (write-behind window, fsync per batch).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bootCore, llm, quick, tick } from './lib.mjs'

async function appendRun(ctx, count) {
  const s = ctx.sessions.create()
  await tick()
  const started = performance.now()
  for (let i = 0; i < count; i++)
    s.append('user/message', llm.createUserMessage(`message ${i}`), { surfaceOp: 'append' })
  await ctx.sessions.flush(s).catch(() => false)
  return performance.now() - started
}

export async function sessionAppend() {
  const count = quick ? 5_000 : 50_000
  const memory = await appendRun(bootCore(), count)
  const root = mkdtempSync(join(tmpdir(), 'bridle-bench-append-'))
  const jsonl = await appendRun(bootCore({ persistence: { root, writeBatchMaxDelayMs: 200 } }), count)
  rmSync(root, { recursive: true, force: true })
  return {
    title: 'Session append throughput',
    columns: ['backend', 'events', 'time / in-memory time'],
    rows: [
      ['in memory', String(count), '1.00'],
      ['session-jsonl (write-behind 200 ms, fsync per batch, flushed)', String(count), (jsonl / memory).toFixed(2)],
    ],
    bars: [],
  }
}
