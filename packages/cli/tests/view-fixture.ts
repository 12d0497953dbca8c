import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sealLog } from '@bridle/session-jsonl'
import { expect } from 'vitest'
import { bridle, DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'

/** A prompt that would run as markup if the viewer did not escape what it shows. */
export const SCRIPT_PROMPT = 'What is the package name? <script>window.__pwned = 1</script>'

export interface ViewFixture {
  app: string
  /** Two turns; the persona section changed between them (as a hot reload of bridle.yaml would). */
  id: string
  /** A copy of a one-turn session whose user message was edited and the log resealed: it loads, but ✗. */
  tampered: string
}

/**
 * Real sessions for the viewer's tests, written by the built CLI with its scripted offline model: one session of
 * two turns with a tool call each and a changed system section in between, and one tampered session.
 */
export async function makeViewFixture(): Promise<ViewFixture> {
  const app = makeApp(DEMO_YAML)
  const first = await bridle(['run', SCRIPT_PROMPT], app)
  expect(first.code, first.stderr).toBe(0)
  const id = sessionIdOf(first.stderr)
  writeFileSync(join(app, 'bridle.yaml'), DEMO_YAML.replace('You answer questions', 'You briefly answer questions'))
  const second = await bridle(['run', '-s', id, 'And its version?'], app)
  expect(second.code, second.stderr).toBe(0)

  const other = await bridle(['run', 'Which files are there?'], app)
  expect(other.code, other.stderr).toBe(0)
  const tampered = sessionIdOf(other.stderr)
  tamperUserMessage(join(app, 'sessions', `${tampered}.jsonl`))
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
