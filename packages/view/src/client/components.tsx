import type { ComponentChildren } from 'preact'
import type { VerifyState, VerifyView } from '../types.js'
import type { DataSource } from './data.js'
import { sessionHref } from './router.js'

/** ✓ / ✗ for one request's verification, with what did not match. */
export function Verified({ verify }: { verify: VerifyView }) {
  if (verify.ok)
    return (
      <span class="ok" title="rebuilt from the log, it matches its request/digest">
        ✓ verified
      </span>
    )
  const why = verify.error ?? `mismatched: ${verify.mismatched.join(', ')}`
  return (
    <span class="bad" title={why}>
      ✗ {why}
    </span>
  )
}

/** The verification of a whole session. */
export function SessionVerified({ state }: { state: VerifyState }) {
  if (state === 'ok') return <span class="ok">✓ all verify</span>
  if (state === 'failed') return <span class="bad">✗ verification failed</span>
  return <span class="muted">– no digests</span>
}

export function Failure({ title, error }: { title: string; error: string }) {
  return (
    <div class="failure" role="alert">
      <strong>{title}</strong>
      <pre>{error}</pre>
    </div>
  )
}

/** A link a page that cannot show what was asked offers instead. */
export interface Way {
  href: string
  text: string
}

/**
 * What the viewer shows for a session, request or address it does not have: what was asked, why it is not here, and
 * links to where the reader can go (the sessions list, the session, its requests).
 */
export function NotFound({ title, detail, ways }: { title: string; detail?: string; ways: Way[] }) {
  return (
    <main class="not-found" data-not-found>
      <h1>{title}</h1>
      {detail ? <p class="muted">{detail}</p> : null}
      <ul class="ways">
        {ways.map((way) => (
          <li key={way.href}>
            <a href={way.href}>{way.text}</a>
          </li>
        ))}
      </ul>
    </main>
  )
}

/** Where a reader can always go: the sessions list, and in a file the one session it holds. */
export function homeWays(data: DataSource): Way[] {
  const ways: Way[] = [{ href: '#/', text: data.mode === 'file' ? 'the sessions in this file' : 'all sessions' }]
  if (data.fileSession !== undefined)
    ways.push({ href: sessionHref(data.fileSession), text: `session ${data.fileSession}` })
  return ways
}

export function Loading() {
  return <p class="muted">Loading…</p>
}

/** A block of text from the log, shown as text (never as markup), folded when long. */
export function Text({ text, open }: { text: string; open?: boolean }) {
  if (text.length <= 600 && text.split('\n').length <= 12) return <pre class="text">{text}</pre>
  return (
    <details class="long" open={open}>
      <summary>
        {text.split('\n')[0]!.slice(0, 120)}… <span class="muted">({text.length.toLocaleString('en-US')} chars)</span>
      </summary>
      <pre class="text">{text}</pre>
    </details>
  )
}

export function Section({
  title,
  children,
  id,
}: {
  title: ComponentChildren
  children: ComponentChildren
  id?: string
}) {
  return (
    <section class="card" id={id}>
      <h2>{title}</h2>
      {children}
    </section>
  )
}
