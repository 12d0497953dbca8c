import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sealLog } from '@bridle/session-jsonl'
import { expect } from 'vitest'
import { ask, makeApp, PERSONA, type TestApp } from './app.js'

/** A prompt that would run as markup if the viewer did not escape what it shows. */
export const SCRIPT_PROMPT = 'What is the package name? <script>window.__pwned = 1</script>'

export interface ViewFixture {
  app: TestApp
  /** Two turns; the persona section changed between them (as a redeployed app's would). */
  id: string
  /** A one-turn session whose user message was edited and the log resealed: it loads, but ✗. */
  tampered: string
}

/**
 * Real sessions for the viewer's tests, written by the agent loop with the scripted offline model: one session of two
 * turns (a tool call and its answer, then a plain answer) with a changed system section in between, and one tampered
 * session, written last.
 */
export async function makeViewFixture(): Promise<ViewFixture> {
  const app = makeApp()
  const id = await ask(app, SCRIPT_PROMPT)
  await ask(app, 'And its version?', { session: id, persona: PERSONA.replace('You answer', 'You briefly answer') })
  // a later creation time than the first session, so the list shows it first
  await new Promise((resolve) => setTimeout(resolve, 5))
  const tampered = await ask(app, 'Which files are there?')
  tamperUserMessage(join(app.sessions, `${tampered}.jsonl`))
  return { app, id, tampered }
}

/** Rewrites the first user message's text and reseals the line checksums, so only digest verification can tell. */
function tamperUserMessage(file: string): void {
  const [header, ...lines] = readFileSync(file, 'utf8').trimEnd().split('\n')
  const at = lines.findIndex((line) => JSON.parse(line).type === 'user/message')
  const event = JSON.parse(lines[at]!)
  const text = JSON.stringify(event.data).replace('Which files', 'Which secrets')
  expect(text).not.toBe(JSON.stringify(event.data))
  event.data = JSON.parse(text)
  lines[at] = JSON.stringify(event)
  writeFileSync(file, sealLog([header, ...lines].join('\n') + '\n'))
}
