// Write a session, kill the process mid-turn with SIGKILL, then resume it.
// Run after `pnpm build`: node packages/session-jsonl/examples/crash-resume.mjs
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SessionStore } from '@bridle/session'
import { SessionJsonl } from '@bridle/session-jsonl'
import { Context } from 'cordis'

const user = (id, text) => ({ id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } })

function app(root) {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(SessionJsonl, { root })
  return ctx
}

if (process.argv[2] === 'writer') {
  // The child: one finished turn, then a second turn that never ends.
  const ctx = app(process.argv[3])
  const session = ctx.sessions.create('demo', { meta: { cwd: process.cwd() } })
  session.append('turn/start', { turn: 1 })
  session.append('user/message', user('u1', 'hello'), { surfaceOp: 'append' })
  session.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
  session.append('turn/start', { turn: 2 })
  session.append('step/start', { turn: 2, step: 1 })
  session.append('user/message', user('u2', 'read package.json'), { surfaceOp: 'append' })
  await ctx.sessions.flush(session) // a durability checkpoint: everything so far is on disk
  console.log('flushed')
  setInterval(() => {}, 1000) // keep running until killed
} else {
  const root = join(mkdtempSync(join(tmpdir(), 'bridle-demo-')), 'sessions')
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'writer', root], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  child.stdout.once('data', () => child.kill('SIGKILL'))
  await new Promise((resolve) => child.on('exit', resolve))
  console.log('writer killed mid-turn')

  const ctx = app(root)
  console.log(
    'stored sessions:',
    (await ctx.sessionPersistence.list()).map((m) => m.id),
  )
  const session = await ctx.sessionPersistence.resume('demo')
  for (const e of session.events) console.log(e.seq, e.type, JSON.stringify(e.data))
  // turn 2 was closed by crash repair (step/end, turn/end interrupted), then session/end-seed marks the resume.
  session.append('turn/start', { turn: 3 })
  session.append('turn/end', { turn: 3, reason: { kind: 'completed' } })
  await ctx.sessions.flush(session)
  console.log('resumed and continued at seq', session.seq)
}
