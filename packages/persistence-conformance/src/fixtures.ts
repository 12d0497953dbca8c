import type { AnySessionEvent, Session } from '@bridle/session'
import { buildLog, scriptedAppends, type ScriptedAppend } from './script.js'

export { scriptedAppends, type ScriptedAppend }

/** An identified user message. */
export function userMessage(id: string, text: string) {
  return { id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }
}

/** Replays scripted appends on a live session (seqs must line up with the script). */
export function replay(session: Session, appends: readonly ScriptedAppend[]): void {
  for (const a of appends) session.append(a.type as never, a.data as never, a.opts as never)
}

/** A small well-formed log: one closed turn, then an open turn 2 with a step and a user message. */
export function sampleEvents(): AnySessionEvent[] {
  const raw = [
    { type: 'turn/start', data: { turn: 1 } },
    { type: 'user/message', data: userMessage('u1', 'hi'), surfaceOp: 'append' },
    { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
    { type: 'turn/start', data: { turn: 2 } },
    { type: 'step/start', data: { turn: 2, step: 1 } },
    { type: 'user/message', data: userMessage('u2', 'more'), surfaceOp: 'append' },
  ]
  return raw.map((e, seq) => ({ ...e, seq, time: 100 + seq }) as AnySessionEvent)
}

/** The scripted log of `turns` turns, as stored events with a deterministic clock. */
export const scriptedLog = (turns: number) => buildLog(scriptedAppends(turns))

/** A stored header. */
export const header = (id: string, createdAt = 1000) => ({ version: 0 as const, id, createdAt })
